/**
 * Environment every hub service reads. Apps extend it with their own variables; nothing else
 * reads process.env. A bad or missing value stops the service with a message naming it.
 */
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { Secret } from './secret.decorator';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

export const toBoolean = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : value === true || value === 'true' || value === '1';

export class ServiceConfig {
  /** postgres://user:password@host:port/database */
  @Secret()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'CAREEN_DATABASE_URL must be a postgres:// URL' })
  CAREEN_DATABASE_URL!: string;

  /** Connections this service keeps to Postgres at most. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  CAREEN_DATABASE_POOL_SIZE = 10;

  /**
   * How long a request waits for one of those connections, in milliseconds, before it is answered
   * 503 with Retry-After. Just under a client's patience (30 s for the agent and the CLI), so that
   * under a burst Postgres does not do the work of a request whose client has already given up on
   * it and sent it again. Much shorter, the refusals and their retries cost more than they save:
   * at 10 s a 5,000-agent rollout took longer and its agents warned 43% more often.
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(600_000)
  CAREEN_DATABASE_POOL_WAIT_MS = 25_000;

  /** One or more comma-separated nats:// URLs. */
  @Matches(/^nats:\/\/[^,\s]+(,nats:\/\/[^,\s]+)*$/, {
    message: 'CAREEN_NATS_URL must be one or more nats:// URLs, comma-separated',
  })
  CAREEN_NATS_URL!: string;

  /**
   * Replicas of the streams this service creates: 3 on a three-node JetStream cluster, so that
   * acknowledged events survive the loss of a node. Set at creation only: an existing stream
   * keeps the replicas it has (an operator changes them with `nats stream edit`).
   */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(5)
  CAREEN_NATS_STREAM_REPLICAS = 1;

  /** A NATS creds file (user JWT and seed), where the server enforces JWT authorization. */
  @IsOptional()
  @IsString()
  CAREEN_NATS_CREDS?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  CAREEN_LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** OTLP/HTTP collector base URL; traces are only exported when set. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  CAREEN_OTEL_ENDPOINT?: string;

  /** Run this service's migrations at start (turn off when a Job runs them). */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  CAREEN_MIGRATE = true;
}
