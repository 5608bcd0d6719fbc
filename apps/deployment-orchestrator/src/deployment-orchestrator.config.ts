import { DeploymentSetting, HubServiceConfig, Secret } from '@careen/service';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

export class DeploymentOrchestratorConfig extends HubServiceConfig {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  CAREEN_DEPLOYMENT_ORCHESTRATOR_PORT = 8083;

  /**
   * The user (`org/username`, a hub admin) the service reads nodes as and publishes the
   * node-targeted management policies of rollouts and upgrades as.
   */
  @IsOptional()
  @Matches(/^[^/\s]+\/[^/\s]+$/, { message: 'CAREEN_ORCHESTRATOR_EXCHANGE_USER must be org/username' })
  CAREEN_ORCHESTRATOR_EXCHANGE_USER = 'root/root';

  /** Without it strategies can be stored and read, but nothing planned or run: those routes answer 503. */
  @IsOptional()
  @IsString()
  @Secret()
  @DeploymentSetting()
  CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD?: string;

  /**
   * The agbot, asked which steps an alert gate's soak still holds: a rollout counts a node's step
   * done only once its soak is over. Without it, a step is done once the node reports so.
   */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  @DeploymentSetting()
  CAREEN_AGBOT_URL?: string;

  /** How often the driver looks at rollouts and upgrades under way, in ms. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(60_000)
  CAREEN_ORCHESTRATOR_TICK_MS = 500;

  /** A node whose last status report is older than this is offline and not upgraded alone. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(86_400)
  CAREEN_ORCHESTRATOR_OFFLINE_SECONDS = 300;

  /** How long a single-node upgrade may take before it is recorded failed. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(7 * 86_400)
  CAREEN_ORCHESTRATOR_UPGRADE_TIMEOUT_SECONDS = 3600;
}
