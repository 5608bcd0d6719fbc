import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

export class SessionListQuery {
  @ApiPropertyOptional({ description: "an org (hub admins); default the caller's" })
  @IsOptional()
  @IsString()
  org?: string;
}
