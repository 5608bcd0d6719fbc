import { DeploymentSetting, HubServiceConfig, Secret, toBoolean } from '@careen/service';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

const URL_RULE = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

export class MaintenanceSessionConfig extends HubServiceConfig {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  CAREEN_MAINTENANCE_SESSION_PORT = 8082;

  /**
   * The user (`org/username`, a hub admin) the service reads nodes and workloads as, cordons
   * hosts as and takes HA-group slots at the agbot as.
   */
  @IsOptional()
  @Matches(/^[^/\s]+\/[^/\s]+$/, { message: 'CAREEN_MAINTENANCE_EXCHANGE_USER must be org/username' })
  CAREEN_MAINTENANCE_EXCHANGE_USER = 'root/root';

  /** Without it sessions cannot be planned or driven: `POST /v1/maintenance` answers 503. */
  @IsOptional()
  @IsString()
  @Secret()
  @DeploymentSetting()
  CAREEN_MAINTENANCE_EXCHANGE_PASSWORD?: string;

  /** The agbot, whose HA-group semaphore every host of a group takes before it goes down. */
  @IsOptional()
  @IsUrl(URL_RULE)
  @DeploymentSetting()
  CAREEN_AGBOT_URL = 'http://127.0.0.1:8081';

  /** Where VNF managers reach this service: the base of every `reply_url` and `instance_ids` URL. */
  @IsOptional()
  @IsUrl(URL_RULE)
  CAREEN_MAINTENANCE_PUBLIC_URL?: string;

  /** Whether a project counts as subscribed while the notifier does not answer. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  CAREEN_MAINTENANCE_ASSUME_SUBSCRIBED = true;

  /** How often the driver looks at open sessions (hosts emptied, slots freed, replies due). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(60_000)
  CAREEN_MAINTENANCE_TICK_MS = 250;

  /** How long a host's HA-group slot lasts unless renewed (the driver renews it every third of it). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(86_400)
  CAREEN_MAINTENANCE_SLOT_LEASE_SECONDS = 300;

  /**
   * How long a host back in service may take to run its workloads again; past it, its HA
   * group's slot is given back anyway and the session's timeline says what it lacked.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(86_400)
  CAREEN_MAINTENANCE_SERVE_AGAIN_SECONDS = 300;
}
