import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsObject, IsString, Matches, ValidateNested } from 'class-validator';
import { WorkloadServiceDto } from './node-status.dto';

export class DesiredWorkloadDto {
  @ApiProperty({ example: 'gateway-eu' })
  @IsString()
  @Matches(IDENTIFIER_PATTERN, { message: `deploymentPolicy must be ${IDENTIFIER_RULE}` })
  deploymentPolicy!: string;

  @ApiProperty({ type: WorkloadServiceDto })
  @IsObject()
  @ValidateNested()
  @Type(() => WorkloadServiceDto)
  service!: WorkloadServiceDto;
}

/** PUT by the agbot: the full set of workloads the node should run. */
export class NodeWorkloadsDto {
  @ApiProperty({ type: [DesiredWorkloadDto] })
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => DesiredWorkloadDto)
  workloads!: DesiredWorkloadDto[];
}
