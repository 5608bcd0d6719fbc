import { DeploymentSetting, Secret, ServiceConfig } from '@careen/service';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';

export class ExchangeConfig extends ServiceConfig {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  CAREEN_EXCHANGE_PORT = 8080;

  /** Password of the hub admin `root/root`; generated and printed once when unset. */
  @IsOptional()
  @Secret()
  @IsString()
  @MinLength(8)
  @DeploymentSetting()
  CAREEN_ROOT_PASSWORD?: string;

  /** Lifetime of the access tokens the exchange issues. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(30)
  @Max(86_400)
  CAREEN_TOKEN_TTL_SECONDS = 900;

  /** Largest agent package `POST /v1/agent-packages` accepts, in bytes (413 beyond). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CAREEN_AGENT_PACKAGE_MAX_BYTES = 256 * 1024 * 1024;
}
