import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type SoakState } from './soaks';

export class SoakStateResponse {
  @ApiProperty() node!: string;
  @ApiProperty({
    enum: ['held', 'soaking', 'soak-failed', 'halted'],
    description:
      'held: its step has not ended (it holds a slot); soaking: its step ended and the gate waits for quiet until `until`; soak-failed: an alert fired during the soak and halted it; halted: its upgrade failed and it halts its group',
  })
  state!: SoakState['state'];
  @ApiPropertyOptional({ description: 'the soaking gate' }) gate?: string;
  @ApiPropertyOptional({ type: String, format: 'date-time' }) until?: string;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'why it halted' }) error?: string | null;

  static from(state: SoakState): SoakStateResponse {
    switch (state.state) {
      case 'held':
        return { node: state.node, state: 'held' };
      case 'soaking':
        return { node: state.node, state: 'soaking', gate: state.gate, until: state.until.toISOString() };
      case 'halted':
      case 'soak-failed':
        return { node: state.node, state: state.state, error: state.error };
    }
  }
}

/** `GET …/soaks`: the nodes a soaking gate covers whose step is under way, soaking or failed. */
export class SoakListResponse {
  @ApiProperty({ type: [SoakStateResponse] }) items!: SoakStateResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
