import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { SERVICE_URL_PATTERN } from './put-service.dto';

export class ListServicesQuery {
  @ApiPropertyOptional({ description: 'only versions of this service url' })
  @IsOptional()
  @IsString()
  @Matches(SERVICE_URL_PATTERN, { message: 'url must be 1-256 characters without whitespace' })
  url?: string;
}
