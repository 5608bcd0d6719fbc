/**
 * A health gate on Prometheus alerts, after kured's alert filter but scoped: while an alert
 * firing at the gate's Prometheus matches its matchers, nothing new starts on the nodes in the
 * alert's scope; when Prometheus cannot be asked, the gate is closed unless configured open.
 * Pure: the agbot asks Prometheus on its own schedule (never inside the slot's transaction) and
 * hands the last answer here.
 */
import { type DisruptionSelector, covers, type SelectedNode } from './disruption-selector';
import { type AlertMatcher, matchesAll, parseMatcher } from './alert-matchers';

/**
 * Which covered nodes a matching alert closes the gate for: every one (`all`); the node, HA
 * group or label value its `alertLabel` names (`node`, `haGroup`, `label:<key>`). An alert
 * without that label closes it for every covered node.
 */
export type AlertScope = 'all' | 'node' | 'haGroup' | `label:${string}`;

export interface AlertGateSettings {
  org: string;
  name: string;
  selector: DisruptionSelector;
  prometheusUrl: string;
  matchers: string[];
  scope: AlertScope;
  /** The alert label holding the node id, group or label value; by default `node`, `ha_group` or the label's key. */
  alertLabel?: string;
  /** Whether the gate stays open while Prometheus cannot be asked; closed by default. */
  onUnavailable?: 'closed' | 'open';
  /** How often Prometheus is asked, in seconds. */
  evaluationSeconds?: number;
  /** The soak after each step on a covered node, in seconds (soak.ts); none when unset. */
  soakSeconds?: number;
}

/** Prometheus's last answer to the gate: its firing alerts, or why it could not be asked. */
export type AlertAnswer =
  { askedAt: Date; alerts: { labels: Record<string, string> }[] } | { askedAt: Date; error: string };

export interface GateRefusal {
  reason: 'gate';
  control: string;
  message: string;
}

export const DEFAULT_EVALUATION_SECONDS = 15;

/** Why the settings are no gate, or undefined when they are one. */
export function alertGateProblem(
  gate: Omit<AlertGateSettings, 'org' | 'name' | 'selector'>,
): string | undefined {
  if (!Array.isArray(gate.matchers) || gate.matchers.length === 0)
    return 'matchers must name at least one label matcher';
  for (const text of gate.matchers) {
    const parsed = parseMatcher(text);
    if ('problem' in parsed) return `matchers: ${parsed.problem}`;
  }
  if (!/^(all|node|haGroup|label:[a-zA-Z0-9_.\-/]+)$/.test(gate.scope))
    return 'scope must be all, node, haGroup or label:<node label key>';
  return undefined;
}

export class AlertGate {
  private readonly matchers: AlertMatcher[];

  constructor(readonly settings: AlertGateSettings) {
    const problem = alertGateProblem(settings);
    if (problem) throw new Error(problem);
    this.matchers = settings.matchers.map((text) => parseMatcher(text) as AlertMatcher);
  }

  get evaluationSeconds(): number {
    return this.settings.evaluationSeconds ?? DEFAULT_EVALUATION_SECONDS;
  }

  covers(node: SelectedNode): boolean {
    return covers(this.settings.selector, node);
  }

  /**
   * Why the gate keeps `node` closed given Prometheus's last answer (undefined: never asked yet)
   * at `now`; an answer older than three evaluations counts as none.
   */
  check(node: SelectedNode, answer: AlertAnswer | undefined, now: Date): GateRefusal | undefined {
    const { name, prometheusUrl, onUnavailable = 'closed' } = this.settings;
    const stale =
      !answer || now.getTime() - answer.askedAt.getTime() > 3 * this.evaluationSeconds * 1000 + 5_000;
    if (!answer || stale || 'error' in answer) {
      if (onUnavailable === 'open') return undefined;
      const why = !answer
        ? 'not asked yet'
        : 'error' in answer
          ? answer.error
          : `no answer since ${answer.askedAt.toISOString()}`;
      return {
        reason: 'gate',
        control: name,
        message: `gate "${name}" is closed: Prometheus at ${prometheusUrl} cannot be asked (${why})`,
      };
    }
    const firing = this.firingFor(node, answer);
    if (!firing) return undefined;
    return { reason: 'gate', control: name, message: `${describeAlert(firing)} (gate "${name}")` };
  }

  /** The first alert of the answer that matches the gate's matchers and whose scope takes in `node`. */
  firingFor(node: SelectedNode, answer: AlertAnswer): { labels: Record<string, string> } | undefined {
    if ('error' in answer) return undefined;
    return answer.alerts.find(
      (alert) => matchesAll(this.matchers, alert.labels) && this.inScope(node, alert.labels),
    );
  }

  /**
   * Whether `a` and `b` share the gate's scope: every covered node does for `all`, the same
   * node, HA group or label value otherwise. A node always shares its own.
   */
  sameScope(a: SelectedNode, b: SelectedNode): boolean {
    const { scope } = this.settings;
    if (a.id === b.id || scope === 'all') return true;
    if (scope === 'node') return false;
    if (scope === 'haGroup') return a.haGroup !== null && a.haGroup === b.haGroup;
    const key = scope.slice('label:'.length);
    return a.labels[key] !== undefined && a.labels[key] === b.labels[key];
  }

  private inScope(node: SelectedNode, labels: Readonly<Record<string, string>>): boolean {
    const { scope } = this.settings;
    if (scope === 'all') return true;
    const key =
      this.settings.alertLabel ??
      (scope === 'node' ? 'node' : scope === 'haGroup' ? 'ha_group' : scope.slice('label:'.length));
    const value = labels[key];
    if (value === undefined) return true;
    if (scope === 'node') return value === node.id;
    if (scope === 'haGroup') return value === node.haGroup;
    return node.labels[scope.slice('label:'.length)] === value;
  }
}

/** An alert as a refusal names it: `alert "NodeDown" firing for node=n1, site=ams`. */
export function describeAlert(alert: { labels: Record<string, string> }): string {
  const shown = Object.entries(alert.labels)
    .filter(([key]) => key !== 'alertname')
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
  return `alert "${alert.labels['alertname'] ?? 'unnamed'}" firing${shown ? ` for ${shown}` : ''}`;
}
