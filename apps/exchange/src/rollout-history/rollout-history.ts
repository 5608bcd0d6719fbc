/**
 * The history of node management rollouts: every status a node wrote for a policy (with its
 * attempt, the versions and the error) and every event of the policy, written in the
 * transaction of the change it records, read newest first a page at a time. It outlives the
 * live statuses, the policy and the node.
 */
import { type ManagementPolicyEvent } from '@careen/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { HistoryEntryResponse, type HistoryPageResponse } from './dto/history-entry.response';

export interface HistoryRow {
  id: string;
  org: string;
  nmp: string;
  node: string | null;
  kind: 'status' | 'policy';
  event: string;
  version: string | null;
  from_version: string | null;
  attempt: number | null;
  detail: string | null;
  actor: string | null;
  at: Date;
}

export interface PolicyEntry {
  org: string;
  nmp: string;
  event: ManagementPolicyEvent;
  reason?: string | null;
  actor?: string | null;
}

export interface HistoryPage {
  limit?: number;
  before?: string;
}

/**
 * The statement that keeps in the history the statuses `source` returns (a data-modifying CTE of
 * the write, returning org, node, nmp, status, version, from_version, attempt and error), so that
 * a status and its history row are written in one round trip. `actor` is the SQL of who wrote
 * them when not the node itself (an admin's reset), else NULL.
 */
export function statusHistoryInsert(source: string, actor: string): string {
  return `INSERT INTO exchange.management_history (org, nmp, node, kind, event, version, from_version, attempt, detail, actor)
     SELECT org, nmp, node, 'status', status, version, from_version, attempt, error, ${actor} FROM ${source}`;
}

const COLUMNS =
  'id::text AS id, org, nmp, node, kind, event, version, from_version, attempt, detail, actor, at';

@Injectable()
export class RolloutHistory {
  constructor(private readonly dataSource: DataSource) {}

  async recordPolicyEvent(manager: EntityManager, entry: PolicyEntry): Promise<void> {
    await manager.query(
      `INSERT INTO exchange.management_history (org, nmp, kind, event, detail, actor)
       VALUES ($1, $2, 'policy', $3, $4, $5)`,
      [entry.org, entry.nmp, entry.event, entry.reason ?? null, entry.actor ?? null],
    );
  }

  /** Every status the node wrote, for every policy or one. */
  forNode(org: string, node: string, page: HistoryPage & { nmp?: string }): Promise<HistoryPageResponse> {
    return this.page(page, 'org = $1 AND node = $2 AND ($3::text IS NULL OR nmp = $3)', [
      org,
      node,
      page.nmp ?? null,
    ]);
  }

  /** The policy's events and every status its nodes wrote, or one node's statuses. */
  forPolicy(org: string, nmp: string, page: HistoryPage & { node?: string }): Promise<HistoryPageResponse> {
    return this.page(page, 'org = $1 AND nmp = $2 AND ($3::text IS NULL OR node = $3)', [
      org,
      nmp,
      page.node ?? null,
    ]);
  }

  private async page(page: HistoryPage, where: string, params: unknown[]): Promise<HistoryPageResponse> {
    const limit = page.limit ?? 100;
    const rows: HistoryRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM exchange.management_history
       WHERE ${where} AND ($4::bigint IS NULL OR id < $4)
       ORDER BY management_history.id DESC LIMIT $5`,
      [...params, page.before ?? null, limit + 1],
    );
    const items = rows.slice(0, limit).map(HistoryEntryResponse.from);
    return { items, next: rows.length > limit ? items.at(-1)!.id : null };
  }
}
