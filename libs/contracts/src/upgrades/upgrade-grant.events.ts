import { IsIn, IsISO8601, IsOptional, IsString, Matches } from 'class-validator';
import { defineEvent, subjectToken } from '../events/event-definition';
import { IDENTIFIER_PATTERN } from '../identifiers';
import { STREAMS } from '../streams';
import { CompiledCheck } from '../validation/compiled-check';
import { fieldsOnly, identifier, isoTime, nullable } from '../validation/compiled-schemas';

/**
 * Who holds a slot of an HA group's semaphore: an agent upgrading itself, a FleetLock client
 * rebooting, or a maintenance session taking the host out of service.
 */
export const UPGRADE_HOLDER_KINDS = ['agent-upgrade', 'fleetlock', 'maintenance'] as const;
export type UpgradeHolderKind = (typeof UPGRADE_HOLDER_KINDS)[number];

/** Why a grant ended. */
export const UPGRADE_RELEASE_REASONS = [
  'terminal-status',
  /** A halted member reported itself healthy again (rolled back, or upgraded after all). */
  'healthy',
  /** An admin reset a halted member's status. */
  'reset',
  'left-group',
  'node-deleted',
  'lease-expired',
  'released',
] as const;
export type UpgradeReleaseReason = (typeof UPGRADE_RELEASE_REASONS)[number];

/** One grant of the upgrade semaphore, as it is published when it starts and when it ends. */
export class UpgradeGrantPayload {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  @Matches(IDENTIFIER_PATTERN)
  node!: string;

  /** The HA group whose slot is held; null for a node outside any group. */
  @IsOptional()
  @IsString()
  haGroup!: string | null;

  @IsIn(UPGRADE_HOLDER_KINDS)
  holder!: UpgradeHolderKind;

  /** The management policy being enacted (agent upgrades only). */
  @IsOptional()
  @IsString()
  managementPolicy!: string | null;

  @IsISO8601()
  grantedAt!: string;

  @IsISO8601()
  leaseExpiresAt!: string;
}

/**
 * Every replica of the agbot reads every release (a waiting member of the group may be asked
 * of any of them): its rules compiled once (see CompiledCheck).
 */
@CompiledCheck(
  fieldsOnly(
    {
      org: identifier,
      node: identifier,
      haGroup: nullable({ type: 'string' }),
      holder: { enum: UPGRADE_HOLDER_KINDS },
      managementPolicy: nullable({ type: 'string' }),
      grantedAt: isoTime,
      leaseExpiresAt: isoTime,
      reason: { enum: UPGRADE_RELEASE_REASONS },
      releasedAt: isoTime,
    },
    ['org', 'node', 'holder', 'grantedAt', 'leaseExpiresAt', 'reason', 'releasedAt'],
  ),
)
export class UpgradeReleasedPayload extends UpgradeGrantPayload {
  @IsIn(UPGRADE_RELEASE_REASONS)
  reason!: UpgradeReleaseReason;

  @IsISO8601()
  releasedAt!: string;
}

/**
 * A member whose install failed and that is not healthy again holds its group's slot, with no
 * lease end, until it reports healthy or an admin resets it: no peer starts meanwhile.
 */
export class UpgradeHaltedPayload extends UpgradeGrantPayload {
  @IsISO8601()
  haltedAt!: string;

  /** The error the member reported. */
  @IsOptional()
  @IsString()
  error!: string | null;
}

export const UpgradeGranted = defineEvent({
  type: 'careen.agbot.upgrade-granted',
  stream: STREAMS.agbot.name,
  filter: 'careen.agbot.upgrades.*.*.granted',
  subject: (org: string, node: string) =>
    `careen.agbot.upgrades.${subjectToken(org)}.${subjectToken(node)}.granted`,
  payload: UpgradeGrantPayload,
});

export const UpgradeReleased = defineEvent({
  type: 'careen.agbot.upgrade-released',
  stream: STREAMS.agbot.name,
  filter: 'careen.agbot.upgrades.*.*.released',
  subject: (org: string, node: string) =>
    `careen.agbot.upgrades.${subjectToken(org)}.${subjectToken(node)}.released`,
  payload: UpgradeReleasedPayload,
});

export const UpgradeHalted = defineEvent({
  type: 'careen.agbot.upgrade-halted',
  stream: STREAMS.agbot.name,
  filter: 'careen.agbot.upgrades.*.*.halted',
  subject: (org: string, node: string) =>
    `careen.agbot.upgrades.${subjectToken(org)}.${subjectToken(node)}.halted`,
  payload: UpgradeHaltedPayload,
});
