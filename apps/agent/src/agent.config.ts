/** The edge agent's environment. It talks only HTTP to the exchange and the agbot, never to NATS or Postgres. */
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { LOG_LEVELS, Secret } from '@careen/service';
import { Transform, Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';

export const WORKLOAD_RUNTIMES = ['process', 'simulated'] as const;
export const INSTALL_STRATEGIES = ['tarball'] as const;

export class AgentConfig {
  /** Base URL of the exchange, e.g. https://careen.example.com:8080 */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  CAREEN_EXCHANGE_URL!: string;

  /** Base URL of the agbot, asked before installing an agent upgrade inside an HA group. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  CAREEN_AGBOT_URL?: string;

  @Matches(IDENTIFIER_PATTERN, { message: `CAREEN_AGENT_ORG must be ${IDENTIFIER_RULE}` })
  CAREEN_AGENT_ORG!: string;

  /** The node's id; defaults to the id kept in the state folder from an earlier run. */
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `CAREEN_AGENT_NODE_ID must be ${IDENTIFIER_RULE}` })
  CAREEN_AGENT_NODE_ID?: string;

  /** The node token; kept in the state folder after the first run. */
  @IsOptional()
  @Secret()
  @IsString()
  @MinLength(16)
  CAREEN_AGENT_TOKEN?: string;

  /** `username:password` of an org user, to register the node when the exchange does not know it yet. */
  @IsOptional()
  @Secret()
  @Matches(/^[^:]+:.+$/, { message: 'CAREEN_AGENT_REGISTER_AS must be username:password' })
  CAREEN_AGENT_REGISTER_AS?: string;

  /** Where the agent keeps its identity and progress across restarts. */
  @IsString()
  CAREEN_AGENT_STATE_DIR = '/var/lib/careen-agent';

  /** Where agent versions are installed: `versions/<v>` and the `current` link. */
  @IsString()
  CAREEN_AGENT_INSTALL_DIR = '/opt/careen-agent';

  @IsIn(INSTALL_STRATEGIES)
  CAREEN_AGENT_INSTALL_STRATEGY: (typeof INSTALL_STRATEGIES)[number] = 'tarball';

  /** The version this agent is when no package has been installed by it yet. */
  @IsString()
  CAREEN_AGENT_VERSION = '0.1.0';

  /** ed25519 public keys (PEM, or base64 of the raw 32 bytes), comma-separated: packages must be signed by one. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((key) => key.trim())
          .filter(Boolean)
      : value,
  )
  @IsArray()
  @IsString({ each: true })
  CAREEN_AGENT_TRUSTED_KEYS: string[] = [];

  /** Longest wait of one change-feed poll (the exchange stamps each poll as the node's heartbeat). */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(120)
  CAREEN_AGENT_POLL_SECONDS = 30;

  /** Caps the package download rate on thin links (bytes per second); unlimited when absent. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1024)
  CAREEN_AGENT_DOWNLOAD_BYTES_PER_SECOND?: number;

  /** Seconds a package's health check may take. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3600)
  CAREEN_AGENT_HEALTH_TIMEOUT_SECONDS = 60;

  @IsIn(WORKLOAD_RUNTIMES)
  CAREEN_AGENT_RUNTIME: (typeof WORKLOAD_RUNTIMES)[number] = 'process';

  /** For the `process` runtime: the command that runs a workload (it reads CAREEN_WORKLOAD_* variables). */
  @IsOptional()
  @IsString()
  CAREEN_AGENT_WORKLOAD_COMMAND?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  CAREEN_LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';
}
