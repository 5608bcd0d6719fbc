import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { IsOmittable } from './field-rules';
import { NodeFieldsDto } from './register-node.dto';

/** PATCH: only the given fields change. */
export class UpdateNodeDto extends NodeFieldsDto {
  @ApiPropertyOptional({ description: 'false keeps new workloads off the node' })
  @IsOmittable()
  @IsBoolean()
  schedulable?: boolean;
}
