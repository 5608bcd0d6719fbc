import { LOG_LEVELS } from '@careen/service';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';

const SERVICE_URL = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

/**
 * The console's server: the built single-page app, and, where no Ingress routes the services'
 * paths (the local launcher), each service's API under its path prefix.
 */
export class ConsoleConfig {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  CAREEN_CONSOLE_PORT = 8085;

  @IsOptional()
  @IsString()
  CAREEN_CONSOLE_HOST = '0.0.0.0';

  /** The built app (index.html and assets/); by default the `public` folder beside the compiled server. */
  @IsOptional()
  @IsString()
  CAREEN_CONSOLE_ROOT?: string;

  /** Each service's URL, to pass /exchange/…, /agbot/…, … on to; unset behind an Ingress that routes them. */
  @IsOptional()
  @IsUrl(SERVICE_URL)
  CAREEN_CONSOLE_EXCHANGE_URL?: string;

  @IsOptional()
  @IsUrl(SERVICE_URL)
  CAREEN_CONSOLE_AGBOT_URL?: string;

  @IsOptional()
  @IsUrl(SERVICE_URL)
  CAREEN_CONSOLE_MAINTENANCE_URL?: string;

  @IsOptional()
  @IsUrl(SERVICE_URL)
  CAREEN_CONSOLE_ORCHESTRATOR_URL?: string;

  @IsOptional()
  @IsUrl(SERVICE_URL)
  CAREEN_CONSOLE_NOTIFIER_URL?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  CAREEN_LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';
}
