/**
 * What the disruption gate would say of a node now, and when the clock next lets it go: the
 * answer to "why does it wait" that every waiting node, session, rollout and FleetLock client can
 * read (GET …/nodes/{node}/disruption, `careen window next`), instance groups included. Read without taking any lock: it
 * describes, it does not decide.
 */
import {
  type Budget,
  type BusyDeclaration,
  type BudgetRefusal,
  checkInstanceGroup,
  type Freeze,
  type MaintenanceWindow,
  type SelectedNode,
  type WindowState,
} from '@careen/disruption';
import { type EntityManager } from 'typeorm';
import {
  BUDGET_COVERED,
  BUDGET_DOWN,
  budgetSelection,
  ORG_CONTROLS,
  SELECTED_NODE,
  ENDED_STEPS,
  INSTANCE_GROUP_IMPACTED,
  NODE_INSTANCE_GROUPS,
  type BudgetCoveredRow,
  type BudgetDownRow,
  type EndedStepRow,
  type InstanceGroupImpactedRow,
  type NodeInstanceGroup,
} from '../upgrades/grant-statements';
import { endedSteps } from './soaks';
import {
  type AlertAnswers,
  budgetRefusal,
  ControlsCache,
  type ControlRow,
  type GateRefusal,
  recoveryRefusal,
} from './disruption-gate';

export interface DisruptionOutlook {
  node: SelectedNode;
  at: Date;
  /** Why a new disruption may not start now (freezes, windows, alert gates, soaks, budgets); undefined when the gate would let one. */
  refusal?: GateRefusal;
  /** When freezes and windows next let one start (now when they do); null: not within a year. */
  nextStart: Date | null;
  windows: { window: MaintenanceWindow; state: WindowState }[];
  freezes: Freeze[];
  budgets: { budget: Budget; covered: number; down: string[]; refusal?: BudgetRefusal }[];
  /** The declared instance groups with instances on the node, with those impacted elsewhere now. */
  instanceGroups: (NodeInstanceGroup & {
    impacted: InstanceGroupImpactedRow['impacted'];
    refusal?: BudgetRefusal;
  })[];
  busy?: BusyDeclaration;
}

const READ = `SELECT date_trunc('milliseconds', clock_timestamp()) AS now,
    ${SELECTED_NODE} AS node,
    coalesce(${ORG_CONTROLS}, '[]') AS controls,
    (SELECT json_build_object('reason', b.reason, 'until', b.until, 'declaredBy', b.declared_by)
     FROM agbot.busy_nodes AS b WHERE b.org = $1 AND b.node = $2 AND b.until > clock_timestamp()) AS busy,
    ${ENDED_STEPS} AS soaking,
    ${NODE_INSTANCE_GROUPS} AS instance_groups`;

export class DisruptionOutlookReader {
  private readonly controls = new ControlsCache();

  /** The node's outlook, or undefined when the mirror does not know it. */
  async read(
    manager: EntityManager,
    org: string,
    id: string,
    alerts: AlertAnswers,
  ): Promise<DisruptionOutlook | undefined> {
    const [row] = (await manager.query(READ, [org, id])) as {
      now: Date;
      node: SelectedNode | null;
      controls: ControlRow[];
      busy: { reason: string; until: string; declaredBy: string } | null;
      soaking: EndedStepRow[] | null;
      instance_groups: NodeInstanceGroup[] | null;
    }[];
    if (!row?.node) return undefined;
    const { node, now } = row;
    const controls = this.controls.of(org, row.controls);
    const budgets = await Promise.all(
      controls.budgetsCovering(node).map(async (budget) => {
        const values = budgetSelection(org, budget.selector);
        const [{ covered }] = await BUDGET_COVERED.run<[BudgetCoveredRow]>(manager, values);
        const [{ down }] = await BUDGET_DOWN.run<[BudgetDownRow]>(manager, values);
        return { budget, covered, down, refusal: budgetRefusal(node.id, [{ budget, covered, down }]) };
      }),
    );
    const instanceGroups = await Promise.all(
      (row.instance_groups ?? []).map(async (group) => {
        const [{ impacted }] = await INSTANCE_GROUP_IMPACTED.run<[InstanceGroupImpactedRow]>(manager, [
          org,
          id,
          group.group,
        ]);
        return { ...group, impacted, refusal: checkInstanceGroup(id, { ...group, impacted }) };
      }),
    );
    const busy = row.busy ? { ...row.busy, until: new Date(row.busy.until) } : undefined;
    const earlyRefusal =
      controls.refusalBeforeBudgets(node, now, busy, alerts, endedSteps(row.soaking)) ??
      recoveryRefusal(row.instance_groups ?? undefined, now);
    return {
      node,
      at: now,
      refusal:
        earlyRefusal ??
        budgets.find((usage) => usage.refusal)?.refusal ??
        instanceGroups.find((usage) => usage.refusal)?.refusal,
      busy,
      nextStart: controls.nextStart(node, now),
      windows: controls.windowsCovering(node, now),
      freezes: controls.freezesCovering(node, now),
      budgets,
      instanceGroups,
    };
  }
}
