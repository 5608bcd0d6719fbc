import { CidrListConstraint, DeploymentSetting, HubServiceConfig, Secret } from '@careen/service';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min, Validate } from 'class-validator';

export class NotifierConfig extends HubServiceConfig {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  CAREEN_NOTIFIER_PORT = 8084;

  /**
   * Comma-separated CIDRs of private, loopback or link-local addresses webhook targets may
   * nevertheless have (checked when a subscription is made and at each call); empty: none.
   */
  @IsOptional()
  @Validate(CidrListConstraint)
  CAREEN_NOTIFIER_ALLOWED_NETWORKS = '';

  /** How long a delivery is retried before it is dead-lettered. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(7 * 86_400)
  CAREEN_NOTIFIER_DELIVERY_DEADLINE_SECONDS = 86_400;

  /** The first retry's delay; each next one doubles, with jitter, up to the longest. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  CAREEN_NOTIFIER_RETRY_BASE_MS = 1_000;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  CAREEN_NOTIFIER_RETRY_MAX_MS = 300_000;

  /** How long a webhook call may take before it counts as failed. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(60_000)
  CAREEN_NOTIFIER_WEBHOOK_TIMEOUT_MS = 5_000;

  /** How often the deliverers look for due deliveries when nothing woke them. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(10)
  @Max(60_000)
  CAREEN_NOTIFIER_POLL_MS = 250;

  /**
   * The user (`org/username`, a hub admin) the notifier asks the exchange as whose a project is,
   * before an org subscribes to it.
   */
  @IsOptional()
  @Matches(/^[^/\s]+\/[^/\s]+$/, { message: 'CAREEN_NOTIFIER_EXCHANGE_USER must be org/username' })
  CAREEN_NOTIFIER_EXCHANGE_USER = 'root/root';

  /** Without it, project subscriptions are refused (503): whose the project is cannot be checked. */
  @IsOptional()
  @IsString()
  @Secret()
  @DeploymentSetting()
  CAREEN_NOTIFIER_EXCHANGE_PASSWORD?: string;

  /** The NATS account `nats` subscribers are users of (its public key, `A…`). */
  @IsOptional()
  @Matches(/^A[A-Z2-7]{55}$/, { message: 'CAREEN_NOTIFIER_NATS_ACCOUNT must be an account public key (A…)' })
  @DeploymentSetting()
  CAREEN_NOTIFIER_NATS_ACCOUNT?: string;

  /** A signing key of that account (a seed, `SA…`) the notifier signs subscribers' users with. */
  @IsOptional()
  @Matches(/^SA[A-Z2-7]{56}$/, { message: 'CAREEN_NOTIFIER_NATS_SIGNING_KEY must be an account seed (SA…)' })
  @Secret()
  @DeploymentSetting()
  CAREEN_NOTIFIER_NATS_SIGNING_KEY?: string;

  /** How long the NATS credentials a subscriber is issued stay valid. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(60)
  @Max(366 * 86_400)
  CAREEN_NOTIFIER_NATS_CREDENTIALS_SECONDS = 30 * 86_400;
}
