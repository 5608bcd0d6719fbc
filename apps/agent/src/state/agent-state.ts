import { IDENTIFIER_PATTERN } from '@careen/contracts';
import { IsArray, IsISO8601, IsInt, IsObject, IsOptional, IsString, Matches, Min } from 'class-validator';
import { type EnactmentRecord } from '../enactment/enactment-record';
import { type ManagementPolicy } from '../exchange/exchange.types';

export const UPGRADE_PHASES = [
  'downloading',
  'downloaded',
  'installing',
  'restarting',
  'rolling-back',
  'rolled-back-restarting',
] as const;
export type UpgradePhase = (typeof UPGRADE_PHASES)[number];

/** An upgrade under way, saved before each step so a restart resumes it or rolls it back. */
export interface UpgradeInProgress {
  nmp: string;
  lastUpdated: string;
  version: string;
  /** The version to roll back to (null: the agent as first installed). */
  previous: string | null;
  action: 'install' | 'download';
  /** Where to fetch the package from instead of the exchange. */
  location?: string;
  phase: UpgradePhase;
  startTime: string;
  error?: string;
}

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

  /** The last change id read from the exchange's feed; absent until the agent has read its state afresh. */
  @IsOptional()
  @IsInt()
  @Min(0)
  changeCursor?: number;

  /** The org's management policies: listed when reading afresh, then kept up to date from the feed. */
  @IsOptional()
  @IsObject()
  policies?: Record<string, ManagementPolicy>;

  @IsOptional()
  @IsObject()
  enactments?: Record<string, EnactmentRecord>;

  @IsOptional()
  @IsObject()
  upgrade?: UpgradeInProgress;

  /** The last management status the exchange took, per policy. */
  @IsOptional()
  @IsObject()
  acknowledgedStatuses?: Record<string, string>;

  /** Versions whose install failed here: never tried again until a newer one or a reset. */
  @IsOptional()
  @IsArray()
  failedVersions?: string[];

  @IsOptional()
  @IsObject()
  agentVersion?: { upgradeStart: string | null; upgradeEnd: string | null };
}

export const AGENT_STATE_VERSION = 1;
