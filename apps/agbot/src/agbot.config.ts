import { IDENTIFIER_PATTERN } from '@careen/contracts';
import { CidrListConstraint, DeploymentSetting, HubServiceConfig, Secret } from '@careen/service';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min, Validate } from 'class-validator';

export class AgbotConfig extends HubServiceConfig {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  CAREEN_AGBOT_PORT = 8081;

  /** The hub-admin user (`org/username`) the agbot reads the registry and writes desired workloads as. */
  @IsOptional()
  @Matches(/^[^/\s]+\/[^/\s]+$/, { message: 'CAREEN_AGBOT_EXCHANGE_USER must be org/username' })
  CAREEN_AGBOT_EXCHANGE_USER = 'root/root';

  /** Without it the agbot still grants upgrades, but cannot resync from or place workloads in the exchange. */
  @IsOptional()
  @IsString()
  @Secret()
  @DeploymentSetting()
  CAREEN_AGBOT_EXCHANGE_PASSWORD?: string;

  /** Nodes outside HA groups that a rolled service upgrade moves at once. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CAREEN_AGBOT_ROLLOUT_PARALLELISM = 5;

  /** How long a node may take to report a new service version running before its group halts. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CAREEN_AGBOT_ROLLOUT_DEADLINE_SECONDS = 300;

  /** A node whose last heartbeat is older than this is offline: rollouts skip it. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CAREEN_AGBOT_OFFLINE_AFTER_SECONDS = 120;

  /**
   * How long an agent-upgrade grant lasts without a sign of life: the holder renews it by
   * asking again (every lease/3) and by each management-status change it reports.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CAREEN_UPGRADE_LEASE_SECONDS = 120;

  /** The org whose nodes and HA groups FleetLock clients name; without it the FleetLock routes answer 503. */
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: 'CAREEN_FLEETLOCK_ORG must be an org id' })
  CAREEN_FLEETLOCK_ORG?: string;

  /** FleetLock holders an HA group admits at once (an agent upgrade still needs its group free). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CAREEN_FLEETLOCK_SLOTS = 1;

  /**
   * How long a FleetLock slot lasts if the client never reports steady-state: long enough for a
   * reboot, short enough that a node that never comes back does not block its group for good.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CAREEN_FLEETLOCK_LEASE_SECONDS = 1800;

  /** Comma-separated CIDRs from which FleetLock requests without credentials are accepted. */
  @IsOptional()
  @Validate(CidrListConstraint)
  CAREEN_FLEETLOCK_TRUSTED_NETWORKS = '127.0.0.0/8,::1/128';

  /**
   * Comma-separated base URLs of the Prometheus servers an alert gate may name: org admins write
   * gates, and the agbot asks only these (a gate naming another stays closed). Empty: none.
   */
  @IsOptional()
  @IsString()
  CAREEN_ALERT_GATE_PROMETHEUS_URLS = '';
}
