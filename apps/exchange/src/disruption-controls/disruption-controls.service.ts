/**
 * An org's maintenance windows, freezes and budgets: kept as given (the DTOs validate them with
 * the disruption library), each change recorded for the agbot, whose gate enforces them.
 */
import {
  DEFAULT_EVALUATION_SECONDS,
  type DisruptionCalendar,
  disruptionCalendar,
  type DisruptionControlKind,
  type Freeze,
  type MaintenanceWindow,
} from '@careen/disruption';
import { listAnswer } from '@careen/service';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsService } from '../orgs/orgs.service';
import { controlNotFound } from './disruption-controls.errors';
import { type DisruptionSelectorDto, toStoredSelector } from './dto/disruption-selector.dto';
import {
  type BudgetResponse,
  type FreezeResponse,
  type GateResponse,
  type WindowResponse,
} from './dto/disruption-control.response';
import { type PutGateDto } from './dto/put-gate.dto';
import { type PutBudgetDto } from './dto/put-budget.dto';
import { type PutFreezeDto } from './dto/put-freeze.dto';
import { type PutWindowDto } from './dto/put-window.dto';

/** Each kind's request and answer. */
export interface ControlKinds {
  window: { input: PutWindowDto; response: WindowResponse };
  freeze: { input: PutFreezeDto; response: FreezeResponse };
  budget: { input: PutBudgetDto; response: BudgetResponse };
  gate: { input: PutGateDto; response: GateResponse };
}

interface ControlRow {
  org: string;
  name: string;
  description: string | null;
  selector: DisruptionSelectorDto;
  settings: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'org, name, description, selector, settings, created_at, updated_at';

@Injectable()
export class DisruptionControlsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly orgs: OrgsService,
    private readonly changes: ChangeRecorder,
  ) {}

  /** Creates the control or replaces it; `created` tells which. */
  put<K extends DisruptionControlKind>(
    org: string,
    kind: K,
    name: string,
    input: ControlKinds[K]['input'],
  ): Promise<{ created: boolean; control: ControlKinds[K]['response'] }> {
    const { description, selector, ...given } = input;
    return this.dataSource.transaction(async (manager) => {
      await this.orgs.require(manager, org);
      const [row] = (await manager.query(
        `INSERT INTO exchange.disruption_controls AS c (org, kind, name, description, selector, settings)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (org, kind, name) DO UPDATE SET description = EXCLUDED.description,
           selector = EXCLUDED.selector, settings = EXCLUDED.settings, updated_at = now()
         RETURNING ${COLUMNS}, (xmax = 0) AS created`,
        [
          org,
          kind,
          name,
          description ?? null,
          JSON.stringify(toStoredSelector(selector)),
          JSON.stringify(settingsOf(kind, given)),
        ],
      )) as (ControlRow & { created: boolean })[];
      const control = toResponse<K>(row!);
      await this.changes.record<DisruptionControlKind>(manager, {
        org,
        resource: kind,
        resourceId: name,
        operation: row!.created ? 'created' : 'updated',
        data: control,
      });
      return { created: row!.created, control };
    });
  }

  async list<K extends DisruptionControlKind>(
    org: string,
    kind: K,
  ): Promise<{ items: ControlKinds[K]['response'][]; total: number }> {
    await this.orgs.require(this.dataSource.manager, org);
    const rows: ControlRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM exchange.disruption_controls WHERE org = $1 AND kind = $2 ORDER BY name`,
      [org, kind],
    );
    return listAnswer(rows.map((row) => toResponse<K>(row)));
  }

  /** The org's windows with their openings, and its freezes, over `days` days from `from`. */
  async calendar(org: string, from: Date, days: number): Promise<DisruptionCalendar> {
    await this.orgs.require(this.dataSource.manager, org);
    const rows: (ControlRow & { kind: 'window' | 'freeze' })[] = await this.dataSource.query(
      `SELECT kind, ${COLUMNS} FROM exchange.disruption_controls
       WHERE org = $1 AND kind IN ('window', 'freeze') ORDER BY name`,
      [org],
    );
    const of = <T>(kind: 'window' | 'freeze') =>
      rows
        .filter((row) => row.kind === kind)
        .map((row) => ({ org, name: row.name, selector: row.selector, ...row.settings }) as T);
    const until = new Date(from.getTime() + days * 86_400_000);
    return disruptionCalendar(of<MaintenanceWindow>('window'), of<Freeze>('freeze'), from, until);
  }

  async get<K extends DisruptionControlKind>(
    org: string,
    kind: K,
    name: string,
  ): Promise<ControlKinds[K]['response']> {
    return toResponse<K>(await this.require(this.dataSource.manager, org, kind, name));
  }

  async remove(org: string, kind: DisruptionControlKind, name: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const [, count] = (await manager.query(
        'DELETE FROM exchange.disruption_controls WHERE org = $1 AND kind = $2 AND name = $3',
        [org, kind, name],
      )) as [unknown, number];
      if (count === 0) throw controlNotFound(org, kind, name);
      await this.changes.record(manager, { org, resource: kind, resourceId: name, operation: 'deleted' });
    });
  }

  private async require(
    manager: EntityManager,
    org: string,
    kind: DisruptionControlKind,
    name: string,
  ): Promise<ControlRow> {
    const [row] = (await manager.query(
      `SELECT ${COLUMNS} FROM exchange.disruption_controls WHERE org = $1 AND kind = $2 AND name = $3`,
      [org, kind, name],
    )) as ControlRow[];
    if (!row) throw controlNotFound(org, kind, name);
    return row;
  }
}

/** The settings a kind keeps, defaults filled in and instants in UTC. */
function settingsOf(kind: DisruptionControlKind, given: Record<string, unknown>): Record<string, unknown> {
  switch (kind) {
    case 'window':
      return { ...given, cutoffMinutes: given['cutoffMinutes'] ?? 0 };
    case 'freeze':
      return {
        from: new Date(String(given['from'])).toISOString(),
        until: new Date(String(given['until'])).toISOString(),
      };
    case 'budget':
      return { maxUnavailable: given['maxUnavailable'] };
    case 'gate':
      return {
        ...given,
        onUnavailable: given['onUnavailable'] ?? 'closed',
        evaluationSeconds: given['evaluationSeconds'] ?? DEFAULT_EVALUATION_SECONDS,
      };
  }
}

function toResponse<K extends DisruptionControlKind>(row: ControlRow): ControlKinds[K]['response'] {
  return {
    org: row.org,
    name: row.name,
    description: row.description,
    selector: row.selector,
    ...row.settings,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  } as ControlKinds[K]['response'];
}
