import { IDENTIFIER_PATTERN } from '@careen/contracts';
import { IsISO8601, IsInt, IsOptional, IsString, Matches, Min } from 'class-validator';

/** What the agent remembers across restarts. Versioned so later fields can be migrated. */
export class AgentState {
  @IsInt()
  @Min(1)
  schemaVersion!: number;

  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @Matches(IDENTIFIER_PATTERN)
  nodeId!: string;

  @IsOptional()
  @IsString()
  token?: string;

  @IsInt()
  @Min(1)
  starts!: number;

  @IsISO8601()
  lastStartedAt!: string;
}

export const AGENT_STATE_VERSION = 1;
