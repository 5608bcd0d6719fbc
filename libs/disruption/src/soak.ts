/**
 * The soak after a step, Argo-style analysis on an alert gate: once a disruption of a covered
 * node ended (its slot released after it reported healthy), the next one in the same scope of
 * the gate starts only after `soakSeconds` of quiet, and an alert of the gate that fires for the
 * node meanwhile fails the step. Pure: the agbot reads the steps that ended lately from its
 * grant history and hands them here with Prometheus's last answers.
 */
import { type AlertAnswer, type AlertGate, describeAlert } from './alert-gate';
import { type SelectedNode } from './disruption-selector';

/** A step that ended on a node, and nothing has happened on the node since. */
export interface EndedStep {
  node: SelectedNode;
  endedAt: Date;
}

export interface SoakRefusal {
  reason: 'soak';
  control: string;
  /** The node whose step is soaking. */
  node: string;
  until: Date;
  message: string;
}

/** Why the gates keep `node` from starting at `now` while an ended step in its scope soaks. */
export function soakRefusal(
  gates: readonly AlertGate[],
  node: SelectedNode,
  steps: readonly EndedStep[],
  now: Date,
): SoakRefusal | undefined {
  let latest: SoakRefusal | undefined;
  for (const gate of gates) {
    const seconds = gate.settings.soakSeconds;
    if (!seconds || !gate.covers(node)) continue;
    for (const step of steps) {
      if (!gate.covers(step.node) || !gate.sameScope(node, step.node)) continue;
      const until = new Date(step.endedAt.getTime() + seconds * 1000);
      if (until <= now || (latest && latest.until >= until)) continue;
      latest = {
        reason: 'soak',
        control: gate.settings.name,
        node: step.node.id,
        until,
        message: `soaking: node "${step.node.id}" ended its step at ${step.endedAt.toISOString()} and gate "${gate.settings.name}" waits ${seconds} s of quiet, until ${until.toISOString()}`,
      };
    }
  }
  return latest;
}

/** Why the step failed its soak: an alert of a gate covering the node fired for it while it soaked. */
export function soakFailure(
  gates: readonly AlertGate[],
  step: EndedStep,
  answers: (url: string) => AlertAnswer | undefined,
  now: Date,
): string | undefined {
  for (const gate of gates) {
    const seconds = gate.settings.soakSeconds;
    if (!seconds || !gate.covers(step.node)) continue;
    if (step.endedAt.getTime() + seconds * 1000 <= now.getTime()) continue;
    const answer = answers(gate.settings.prometheusUrl);
    const firing = answer && gate.firingFor(step.node, answer);
    if (firing)
      return `${describeAlert(firing)} during the ${seconds} s soak of gate "${gate.settings.name}" after the step`;
  }
  return undefined;
}
