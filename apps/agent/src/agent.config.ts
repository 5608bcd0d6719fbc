/** The edge agent's environment. It talks only HTTP to the exchange, never to NATS or Postgres. */
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { LOG_LEVELS, Secret } from '@careen/service';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';

export class AgentConfig {
  /** Base URL of the exchange, e.g. https://careen.example.com:8080 */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  CAREEN_EXCHANGE_URL!: string;

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

  /** Where the agent keeps its identity and progress across restarts. */
  @IsString()
  CAREEN_AGENT_STATE_DIR = '/var/lib/careen-agent';

  /** How often the agent checks in with the exchange. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(3600)
  CAREEN_AGENT_POLL_SECONDS = 30;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  CAREEN_LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';
}
