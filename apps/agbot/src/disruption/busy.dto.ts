import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { type BusyDeclaration } from '@careen/disruption';

/** `PUT …/nodes/{node}/busy`: no disruption starts on the node for `seconds`, or until freed. */
export class DeclareBusyDto {
  @ApiProperty({ example: 'nightly backup', minLength: 1, maxLength: 500 })
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  reason!: string;

  @ApiProperty({
    example: 3600,
    minimum: 1,
    maximum: 86_400,
    description: 'how long it lasts unless declared again or freed',
  })
  @IsInt()
  @Min(1)
  @Max(86_400)
  seconds!: number;
}

export class BusyResponse {
  @ApiProperty() node!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ description: 'who declared it: the node, or the user' }) declaredBy!: string;
  @ApiProperty({ type: String, format: 'date-time' }) declaredAt!: string;
  @ApiProperty({ type: String, format: 'date-time', description: 'when it lapses' }) until!: string;

  static from(node: string, busy: BusyDeclaration & { declaredAt: Date }): BusyResponse {
    return {
      node,
      reason: busy.reason,
      declaredBy: busy.declaredBy,
      declaredAt: busy.declaredAt.toISOString(),
      until: busy.until.toISOString(),
    };
  }
}
