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
  type BusyRefusal,
  type BudgetRefusal,
  type BudgetUsage,
  checkBudget,
  covers,
  describeSelector,
  type Freeze,
  type MaintenanceWindow,
  recurrenceProblem,
  type SelectedNode,
  TimeGate,
  type TimeRefusal,
  type WindowState,
} from '@careen/disruption';

export type GateRefusal = TimeRefusal | BusyRefusal | AlertGateRefusal | BudgetRefusal;

/** The last answer of the Prometheus at a URL, as the alert watch keeps it. */
export type AlertAnswers = (url: string) => AlertAnswer | undefined;

/** A control as the grant's read answers it: its kind and the exchange's resource. */
export interface ControlRow {
  kind: 'window' | 'freeze' | 'budget' | 'gate';
  data: Record<string, unknown>;
}

/** An org's controls, parsed once. */
export class OrgControls {
  private readonly time: TimeGate;
  private readonly budgets: Budget[];
  private readonly gates: AlertGate[];
  private readonly unreadable: MaintenanceWindow[];
  private readonly unreadableGates: AlertGateSettings[];

  constructor(rows: readonly ControlRow[]) {
    const windows = rows
      .filter((row) => row.kind === 'window')
      .map((row) => row.data as unknown as MaintenanceWindow);
    // A window this version cannot read (the exchange checked it with the same rules) keeps its
    // nodes closed rather than open: a gate fails safe.
    this.unreadable = windows.filter((window) => recurrenceProblem(window) !== undefined);
    const readable = windows.filter((window) => !this.unreadable.includes(window));
    this.time = new TimeGate(
      readable,
      rows.filter((row) => row.kind === 'freeze').map((row) => row.data as unknown as Freeze),
    );
    this.budgets = rows.filter((row) => row.kind === 'budget').map((row) => row.data as unknown as Budget);
    const gates = rows
      .filter((row) => row.kind === 'gate')
      .map((row) => row.data as unknown as AlertGateSettings);
    this.unreadableGates = gates.filter((gate) => alertGateProblem(gate) !== undefined);
    this.gates = gates
      .filter((gate) => !this.unreadableGates.includes(gate))
      .map((gate) => new AlertGate(gate));
  }

  /**
   * Why an alert gate covering `node` keeps it closed at `now`, given each Prometheus's last
   * answer (a gate the agbot cannot read is closed, as a window is).
   */
  gateRefusal(node: SelectedNode, answers: AlertAnswers, now: Date): AlertGateRefusal | undefined {
    const unreadable = this.unreadableGates.find((gate) => covers(gate.selector, node));
    if (unreadable) {
      return {
        reason: 'gate',
        control: unreadable.name,
        message: `gate "${unreadable.name}" cannot be read (${alertGateProblem(unreadable)}): closed until it is replaced`,
      };
    }
    for (const gate of this.gates) {
      if (!gate.covers(node)) continue;
      const refusal = gate.check(node, answers(gate.settings.prometheusUrl), now);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /** Why the clock keeps a new disruption of `node` from starting at `now`, if it does. */
  timeRefusal(node: SelectedNode, now: Date): TimeRefusal | undefined {
    const unreadable = this.unreadable.find((window) => covers(window.selector, node));
    if (unreadable) {
      return {
        reason: 'outside-window',
        control: unreadable.name,
        opensAt: null,
        message: `window "${unreadable.name}" cannot be read (${recurrenceProblem(unreadable)}): its nodes stay closed until it is replaced`,
      };
    }
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
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
