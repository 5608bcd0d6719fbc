import { DeploymentSetting, Secret, ServiceConfig, toBoolean } from '@careen/service';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength } from 'class-validator';

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

  /**
   * Lifetime of the access tokens the exchange issues. Clients renew them with their refresh
   * token, so a short one costs a request now and then, not a login.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(86_400)
  CAREEN_TOKEN_TTL_SECONDS = 900;

  /**
   * How long a user's login lasts: its refresh token renews the access token until then, however
   * often it is used; after it, the user logs in again with the password. At most 20 days: the
   * console times a login's end in the browser, whose timers stop at about 24.8 days.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(20 * 86_400)
  CAREEN_REFRESH_TOKEN_TTL_SECONDS = 43_200;

  /** Largest agent package `POST /v1/agent-packages` accepts, in bytes (413 beyond). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  CAREEN_AGENT_PACKAGE_MAX_BYTES = 256 * 1024 * 1024;

  /**
   * How long the audit trail keeps a record, in days; older ones are pruned (hourly), and
   * verification starts from the last pruned record's hash.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(36_500)
  CAREEN_AUDIT_RETENTION_DAYS = 365;

  /**
   * Whether an org's OpenID provider may be reached over plain http (a provider on the same
   * host or in a lab). Off by default: tokens and codes then travel only over https.
   */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  CAREEN_SSO_ALLOW_HTTP = false;

  /**
   * The NATS account service accounts' bus users belong to (its public key, `A…`): the
   * services' own, as for the notifier's subscribers.
   */
  @IsOptional()
  @Matches(/^A[A-Z2-7]{55}$/, { message: 'CAREEN_EXCHANGE_NATS_ACCOUNT must be an account public key (A…)' })
  @DeploymentSetting()
  CAREEN_EXCHANGE_NATS_ACCOUNT?: string;

  /** A signing key of that account (a seed, `SA…`) the exchange signs service accounts' bus users with. */
  @IsOptional()
  @Matches(/^SA[A-Z2-7]{56}$/, { message: 'CAREEN_EXCHANGE_NATS_SIGNING_KEY must be an account seed (SA…)' })
  @Secret()
  @DeploymentSetting()
  CAREEN_EXCHANGE_NATS_SIGNING_KEY?: string;

  /**
   * A signing key of the NATS operator (a seed, `SO…`): with it and CAREEN_EXCHANGE_NATS_SYSTEM_CREDS
   * the exchange re-signs the account with the bus users of a revoked, removed or ended key, and
   * the servers refuse them at once. Without them, those users last until their own end.
   */
  @IsOptional()
  @Matches(/^SO[A-Z2-7]{56}$/, {
    message: 'CAREEN_EXCHANGE_NATS_OPERATOR_SIGNING_KEY must be an operator seed (SO…)',
  })
  @Secret()
  @DeploymentSetting()
  CAREEN_EXCHANGE_NATS_OPERATOR_SIGNING_KEY?: string;

  /** A creds file of a system-account user that may look up and update the account's claims. */
  @IsOptional()
  @IsString()
  @DeploymentSetting()
  CAREEN_EXCHANGE_NATS_SYSTEM_CREDS?: string;

  /**
   * How long a service account's bus credentials last (never past its key's end). Without the
   * two settings above, the longest a revoked key's credentials still connect.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(86_400)
  CAREEN_BUS_CREDENTIALS_TTL_SECONDS = 600;
}
