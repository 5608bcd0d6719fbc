import { ApiProperty } from '@nestjs/swagger';
import { type HaltReset } from '../upgrade-semaphore';

/** A halt an admin ended, as it stood. */
export class EndedHaltResponse {
  @ApiProperty({ description: 'the member that had failed and halted its group' }) node!: string;
  @ApiProperty({ nullable: true, type: String, description: 'the management policy the halt was for' })
  managementPolicy!: string | null;
  @ApiProperty({ description: 'the policy had been removed: only a reset of the group could end the halt' })
  policyRemoved!: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'the error the member reported' })
  error!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) haltedAt!: string;

  static from(halt: HaltReset): EndedHaltResponse {
    return {
      node: halt.node,
      managementPolicy: halt.managementPolicy,
      policyRemoved: halt.policyRemoved,
      error: halt.haltError,
      haltedAt: halt.haltedAt!.toISOString(),
    };
  }
}

export class HaltResetResponse {
  @ApiProperty() haGroup!: string;
  @ApiProperty({ type: [EndedHaltResponse], description: 'the halts ended; empty when none was left' })
  items!: EndedHaltResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
