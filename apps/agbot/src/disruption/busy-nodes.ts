/**
 * Busy declarations of nodes (agbot.busy_nodes): declared, renewed by declaring again, freed,
 * each told to the audit trail in its transaction.
 */
import { type BusyDeclaration } from '@careen/disruption';
import { type AuditTrail } from '@careen/service';
import { type DataSource, type EntityManager } from 'typeorm';

interface BusyRow {
  reason: string;
  until: Date;
  declared_by: string;
  declared_at: Date;
}

export class BusyNodes {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: Pick<AuditTrail, 'record'>,
  ) {}

  /**
   * Declares the node busy for `seconds` from now (replacing an earlier declaration); undefined
   * when the mirror does not know the node.
   */
  declare(
    org: string,
    node: string,
    declaration: { reason: string; seconds: number; declaredBy: string },
  ): Promise<(BusyDeclaration & { declaredAt: Date }) | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const declared = await this.insert(manager, org, node, declaration);
      if (declared) await this.audit.record(manager, { org, action: 'node.busy', target: `node/${node}` });
      return declared;
    });
  }

  /** Ends the node's declaration; false when it had none in force. */
  free(org: string, node: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const [rows] = (await manager.query(
        'DELETE FROM agbot.busy_nodes WHERE org = $1 AND node = $2 RETURNING until > clock_timestamp() AS lasting',
        [org, node],
      )) as [{ lasting: boolean }[], number];
      if (rows.length > 0)
        await this.audit.record(manager, { org, action: 'node.free', target: `node/${node}` });
      return rows[0]?.lasting ?? false;
    });
  }

  private async insert(
    manager: EntityManager,
    org: string,
    node: string,
    declaration: { reason: string; seconds: number; declaredBy: string },
  ): Promise<(BusyDeclaration & { declaredAt: Date }) | undefined> {
    const [row] = (await manager.query(
      `INSERT INTO agbot.busy_nodes (org, node, reason, declared_by, declared_at, until)
       SELECT n.org, n.id, $3, $4, t.now, t.now + make_interval(secs => $5)
       FROM agbot.nodes AS n, (SELECT date_trunc('milliseconds', clock_timestamp()) AS now) AS t
       WHERE n.org = $1 AND n.id = $2
       ON CONFLICT (org, node) DO UPDATE SET reason = EXCLUDED.reason, declared_by = EXCLUDED.declared_by,
         declared_at = EXCLUDED.declared_at, until = EXCLUDED.until
       RETURNING reason, until, declared_by, declared_at`,
      [org, node, declaration.reason, declaration.declaredBy, declaration.seconds],
    )) as BusyRow[];
    return row && toDeclaration(row);
  }

  /** The node's declaration while it lasts. */
  async of(
    manager: EntityManager,
    org: string,
    node: string,
  ): Promise<(BusyDeclaration & { declaredAt: Date }) | undefined> {
    const [row] = (await manager.query(
      `SELECT reason, until, declared_by, declared_at FROM agbot.busy_nodes
       WHERE org = $1 AND node = $2 AND until > clock_timestamp()`,
      [org, node],
    )) as BusyRow[];
    return row && toDeclaration(row);
  }
}

function toDeclaration(row: BusyRow): BusyDeclaration & { declaredAt: Date } {
  return { reason: row.reason, until: row.until, declaredBy: row.declared_by, declaredAt: row.declared_at };
}
