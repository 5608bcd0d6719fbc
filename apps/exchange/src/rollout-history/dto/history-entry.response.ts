import { MANAGEMENT_POLICY_EVENTS, MANAGEMENT_STATUSES } from '@careen/contracts';
import { ApiProperty } from '@nestjs/swagger';
import semver from 'semver';
import { type HistoryRow } from '../rollout-history';

/** What an entry's `event` may be: a status a node wrote, or what happened to the policy. */
const HISTORY_EVENTS = [...new Set<string>([...MANAGEMENT_STATUSES, ...MANAGEMENT_POLICY_EVENTS])];

export class HistoryEntryResponse {
  @ApiProperty({ description: 'entries are numbered in the order they were written' }) id!: string;
  @ApiProperty() org!: string;
  @ApiProperty({ description: 'the management policy' }) nmp!: string;
  @ApiProperty({ nullable: true, type: String, description: 'null for an event of the policy itself' })
  node!: string | null;
  @ApiProperty({ enum: ['status', 'policy'] }) kind!: 'status' | 'policy';
  @ApiProperty({
    enum: HISTORY_EVENTS,
    description:
      'the status the node wrote, or what happened to the policy: published, enabled, disabled, paused, resumed, reset, removed',
  })
  event!: string;
  @ApiProperty({ nullable: true, type: String, description: 'the version the attempt is about' })
  version!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'the version the node ran when the attempt began',
  })
  fromVersion!: string | null;
  @ApiProperty({
    description: 'a status of an attempt to go below the version the node ran (`version` < `fromVersion`)',
  })
  rollback!: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: "the node's attempt at the policy: 1, 2, …" })
  attempt!: number | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: "the status's error, or the policy event's reason",
  })
  detail!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'who did it, when not the node itself' })
  actor!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) at!: string;

  static from(row: HistoryRow): HistoryEntryResponse {
    return {
      id: row.id,
      org: row.org,
      nmp: row.nmp,
      node: row.node,
      kind: row.kind,
      event: row.event,
      version: row.version,
      fromVersion: row.from_version,
      rollback: row.kind === 'status' && isBelow(row.version, row.from_version),
      attempt: row.attempt,
      detail: row.detail,
      actor: row.actor,
      at: row.at.toISOString(),
    };
  }
}

/** Whether `version` is below `from`; versions that are not semantic are never judged. */
function isBelow(version: string | null, from: string | null): boolean {
  return (
    version !== null &&
    from !== null &&
    semver.valid(version) !== null &&
    semver.valid(from) !== null &&
    semver.lt(version, from)
  );
}

export class HistoryPageResponse {
  @ApiProperty({ type: [HistoryEntryResponse], description: 'newest first' }) items!: HistoryEntryResponse[];
  @ApiProperty({ nullable: true, type: String, description: 'pass as `before` for the next (older) page' })
  next!: string | null;
}
