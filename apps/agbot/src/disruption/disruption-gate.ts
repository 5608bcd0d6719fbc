/**
 * The gate every disruption passes besides its HA group's slot (docs/architecture.md,
 * invariant 9): freezes, then windows, then fleet budgets, checked in the transaction that takes
 * the slot, after the group's advisory lock. The grant store reads the org's controls with the
 * slots (grant-statements.ts), asks here what they say, and reads the usage of the budgets that
 * cover the node under each budget's own lock. Pure apart from a cache of each org's parsed
 * controls, keyed on what was read, so a change to them takes effect on the next ask.
 */
import {
  AlertGate,
  alertGateProblem,
  type AlertAnswer,
  type AlertGateRefusal,
  type AlertGateSettings,
  type Budget,
  type BusyDeclaration,
  busyRefusal,
  type BusyRefusal,
  type BudgetRefusal,
  type BudgetUsage,
  checkBudget,
  covers,
  describeSelector,
  type DisruptionControlKind,
  type EndedStep,
  instanceGroupRecovery,
  soakFailure,
  soakRefusal,
  type SoakRefusal,
  type DisruptionSelector,
  limitProblem,
  type Freeze,
  type MaintenanceWindow,
  recurrenceProblem,
  type SelectedNode,
  TimeGate,
  type TimeRefusal,
  type WindowState,
} from '@careen/disruption';
import { type NodeInstanceGroup } from '../upgrades/grant-statements';

/** A control covering the node that this version cannot read: its nodes stay closed. */
export interface UnreadableRefusal {
  reason: 'unreadable';
  control: string;
  message: string;
}

export type GateRefusal =
  UnreadableRefusal | TimeRefusal | BusyRefusal | AlertGateRefusal | SoakRefusal | BudgetRefusal;

/** What every control has: a name and the selector of the nodes it covers. */
type Control = { name: string; selector: DisruptionSelector };

/** Why a mirrored control is not one this version can enforce, by kind. */
const PROBLEMS: Record<ControlRow['kind'], (data: Record<string, unknown>) => string | undefined> = {
  window: (data) => recurrenceProblem(data as unknown as MaintenanceWindow),
  freeze: (data) =>
    Number.isNaN(Date.parse(String(data['from']))) || Number.isNaN(Date.parse(String(data['until'])))
      ? 'from and until must be instants'
      : undefined,
  budget: (data) => limitProblem(data['maxUnavailable']),
  gate: (data) => alertGateProblem(data as unknown as AlertGateSettings),
};

/** The last answer of the Prometheus at a URL, as the alert watch keeps it. */
export type AlertAnswers = (url: string) => AlertAnswer | undefined;

/** A control as the grant's read answers it: its kind and the exchange's resource. */
export interface ControlRow {
  kind: DisruptionControlKind;
  data: Record<string, unknown>;
}

/** An org's controls, parsed once. */
export class OrgControls {
  private readonly time: TimeGate;
  private readonly budgets: Budget[];
  private readonly gates: AlertGate[];
  private readonly unreadable: { kind: ControlRow['kind']; control: Control; problem: string }[];

  constructor(rows: readonly ControlRow[]) {
    // A control this version cannot read (the exchange checked it with the same rules) keeps its
    // nodes closed rather than open: a gate fails safe.
    this.unreadable = rows.flatMap((row) => {
      const problem = PROBLEMS[row.kind](row.data);
      return problem ? [{ kind: row.kind, control: row.data as unknown as Control, problem }] : [];
    });
    const readable = <T>(kind: ControlRow['kind']) =>
      rows
        .filter((row) => row.kind === kind && !this.unreadable.some((broken) => broken.control === row.data))
        .map((row) => row.data as unknown as T);
    this.time = new TimeGate(readable<MaintenanceWindow>('window'), readable<Freeze>('freeze'));
    this.budgets = readable<Budget>('budget');
    this.gates = readable<AlertGateSettings>('gate').map((gate) => new AlertGate(gate));
  }

  /**
   * What keeps a new disruption of `node` from starting before its budgets are counted, in the
   * gate's order (invariant 9): a control it cannot read, a freeze, its windows, its busy
   * declaration, an alert gate, the soak of a step that ended in the gate's scope (`steps`, the
   * steps that ended lately). `now` is the database's clock; alert answers are judged by this
   * process's, which asked them.
   */
  refusalBeforeBudgets(
    node: SelectedNode,
    now: Date,
    busy: BusyDeclaration | undefined,
    alerts: AlertAnswers,
    steps: readonly EndedStep[] = [],
  ): GateRefusal | undefined {
    return (
      this.unreadableRefusal(node) ??
      this.timeRefusal(node, now) ??
      busyRefusal(busy, now) ??
      this.gateRefusal(node, alerts, new Date()) ??
      this.soakRefusal(node, steps, now)
    );
  }

  /** Why a step that ended in the scope of a soaking gate covering `node` keeps it waiting at `now`. */
  soakRefusal(node: SelectedNode, steps: readonly EndedStep[], now: Date): SoakRefusal | undefined {
    return soakRefusal(this.gates, node, steps, now);
  }

  /** Whether an alert gate that soaks covers `node`. */
  soaksFor(node: SelectedNode): boolean {
    return this.gates.some((gate) => (gate.settings.soakSeconds ?? 0) > 0 && gate.covers(node));
  }

  /** Why the ended step failed its soak at `now`, if an alert of a gate covering it fired. */
  soakFailure(step: EndedStep, alerts: AlertAnswers, now: Date): string | undefined {
    return soakFailure(this.gates, step, alerts, now);
  }

  /** Why a control covering `node` that cannot be read keeps it closed, if one does. */
  unreadableRefusal(node: SelectedNode): UnreadableRefusal | undefined {
    const broken = this.unreadable.find(({ control }) => covers(control.selector, node));
    if (!broken) return undefined;
    return {
      reason: 'unreadable',
      control: broken.control.name,
      message: `${broken.kind} "${broken.control.name}" cannot be read (${broken.problem}): the nodes it covers stay closed until it is replaced`,
    };
  }

  /**
   * Why an alert gate covering `node` keeps it closed at `now`, given each Prometheus's last
   * answer.
   */
  gateRefusal(node: SelectedNode, answers: AlertAnswers, now: Date): AlertGateRefusal | undefined {
    for (const gate of this.gates) {
      if (!gate.covers(node)) continue;
      const refusal = gate.check(node, answers(gate.settings.prometheusUrl), now);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /** Why the clock keeps a new disruption of `node` from starting at `now`, if it does. */
  timeRefusal(node: SelectedNode, now: Date): TimeRefusal | undefined {
    return this.time.check(node, now);
  }

  /**
   * The first moment from `from` on when neither a freeze nor the windows keep a new disruption
   * of `node` from starting; null when none comes within a year.
   */
  nextStart(node: SelectedNode, from: Date): Date | null {
    let at = from;
    for (let step = 0; step < 400; step++) {
      const refusal = this.timeRefusal(node, at);
      if (!refusal) return at;
      const next = refusal.reason === 'freeze' ? refusal.until : refusal.opensAt;
      if (!next || next.getTime() - from.getTime() > 366 * 86_400_000) return null;
      at = next;
    }
    return null;
  }

  windowsCovering(node: SelectedNode, now: Date): { window: MaintenanceWindow; state: WindowState }[] {
    return this.time.windowsCovering(node, now);
  }

  freezesCovering(node: SelectedNode, now: Date): Freeze[] {
    return this.time.freezesCovering(node, now);
  }

  /** The budgets that cover `node`, in name order (the order their locks are taken in). */
  budgetsCovering(node: SelectedNode): Budget[] {
    return this.budgets
      .filter((budget) => covers(budget.selector, node))
      .sort((a, b) => compare(a.name, b.name));
  }
}

/** What the budgets covering a node say, given what each covers and which of those are down. */
export function budgetRefusal(
  node: string,
  usages: readonly { budget: Budget; covered?: number; down: readonly string[] }[],
): BudgetRefusal | undefined {
  for (const { budget, covered, down } of usages) {
    const usage: BudgetUsage = {
      name: budget.name,
      scope: describeSelector(budget.selector),
      limit: budget.maxUnavailable,
      covered,
      down,
    };
    const refusal = checkBudget(node, usage);
    if (refusal) return refusal;
  }
  return undefined;
}

/** Why one of the node's instance groups keeps it waiting at `now` while the group recovers. */
export function recoveryRefusal(
  groups: readonly NodeInstanceGroup[] | undefined,
  now: Date,
): SoakRefusal | undefined {
  for (const group of groups ?? []) {
    const ended = group.lastEnded && { node: group.lastEnded.node, at: new Date(group.lastEnded.at) };
    const refusal = instanceGroupRecovery(group, ended, now);
    if (refusal) return refusal;
  }
  return undefined;
}

/** Each org's parsed controls, kept while what the read answered stays the same. */
export class ControlsCache {
  private readonly orgs = new Map<string, { key: string; controls: OrgControls }>();

  of(org: string, rows: readonly ControlRow[]): OrgControls {
    const key = JSON.stringify(rows);
    const cached = this.orgs.get(org);
    if (cached?.key === key) return cached.controls;
    const controls = new OrgControls(rows);
    this.orgs.set(org, { key, controls });
    return controls;
  }

  /** Whether the org had controls when it was last read. */
  has(org: string): boolean {
    return this.orgs.has(org);
  }

  /** The org was read without controls. */
  forget(org: string): void {
    this.orgs.delete(org);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
