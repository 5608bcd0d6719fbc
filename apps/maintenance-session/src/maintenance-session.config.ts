import { HubServiceConfig } from '@careen/service';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class MaintenanceSessionConfig extends HubServiceConfig {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  CAREEN_MAINTENANCE_SESSION_PORT = 8082;
}
