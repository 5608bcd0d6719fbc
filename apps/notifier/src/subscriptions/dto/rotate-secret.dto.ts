import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';

export class RotateSecretDto {
  @ApiProperty({
    description: 'seconds the old secret still signs deliveries beside the new one, while receivers switch',
    minimum: 0,
    maximum: 604_800,
  })
  @IsInt()
  @Min(0)
  @Max(604_800)
  overlap_seconds!: number;
}
