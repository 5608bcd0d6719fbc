/**
 * The soaks of an org as they stand: which steps soak and until when, which failed their soak,
 * and which nodes a soaking gate covers still hold a slot (their step has not ended). Read with
 * no lock held: the soak watch (soak-watch.ts) fails the steps an alert fired for, and the
 * orchestrator waits on the others before it counts a node's step done (GET …/soaks).
 */
import { type EndedStep, type SelectedNode } from '@careen/disruption';
import { type EntityManager } from 'typeorm';
import {
  ENDED_STEPS,
  type EndedStepRow,
  ORG_CONTROLS,
  selectedNodeFields,
} from '../upgrades/grant-statements';
import { ControlsCache, type ControlRow, type OrgControls } from './disruption-gate';

export type SoakState =
  | { node: string; state: 'held' }
  | { node: string; state: 'soaking'; gate: string; until: Date }
  | { node: string; state: 'halted' | 'soak-failed'; error: string | null };

/** A step that ended lately, with the policy it enacted (what a halt of it needs). */
export interface SoakingStep extends EndedStep {
  managementPolicy: string | null;
}

/** A slot held in the org, with what the gates' selectors look at of its node. */
type Holder = SelectedNode & { halted: boolean; soak_failed: boolean; error: string | null };

const READ = `SELECT date_trunc('milliseconds', clock_timestamp()) AS now,
    coalesce(${ORG_CONTROLS}, '[]') AS controls,
    ${ENDED_STEPS} AS soaking,
    (SELECT json_agg(json_build_object(${selectedNodeFields('n')},
                                       'halted', g.halted_at IS NOT NULL, 'soak_failed', g.soak_failed,
                                       'error', g.halt_error))
     FROM agbot.upgrade_grants AS g JOIN agbot.nodes AS n ON n.org = g.org AND n.id = g.node
     WHERE g.org = $1) AS holders`;

/** The orgs whose alert gates soak. */
const SOAKING_ORGS = `SELECT DISTINCT org FROM agbot.mirrored_resources
  WHERE resource = 'gate' AND (data ->> 'soakSeconds')::int > 0`;

export class SoakReader {
  private readonly controls = new ControlsCache();

  async soakingOrgs(manager: EntityManager): Promise<string[]> {
    const rows: { org: string }[] = await manager.query(SOAKING_ORGS);
    return rows.map((row) => row.org);
  }

  /** The org's controls, the steps that ended lately, the slots held, and the database's clock. */
  async read(
    manager: EntityManager,
    org: string,
  ): Promise<{
    now: Date;
    controls: OrgControls;
    steps: SoakingStep[];
    holders: Holder[];
  }> {
    const [row] = (await manager.query(READ, [org])) as {
      now: Date;
      controls: ControlRow[];
      soaking: EndedStepRow[] | null;
      holders: Holder[] | null;
    }[];
    return {
      now: row!.now,
      controls: this.controls.of(org, row!.controls),
      steps: endedSteps(row!.soaking),
      holders: row!.holders ?? [],
    };
  }

  /** The soak state of every node of the org a soaking gate covers that holds a slot or soaks. */
  async states(manager: EntityManager, org: string): Promise<SoakState[]> {
    const { now, controls, steps, holders } = await this.read(manager, org);
    const states = new Map<string, SoakState>();
    for (const holder of holders) {
      if (!controls.soaksFor(holder)) continue;
      const state: SoakState = holder.halted
        ? { node: holder.id, state: holder.soak_failed ? 'soak-failed' : 'halted', error: holder.error }
        : { node: holder.id, state: 'held' };
      if (!holder.halted && states.has(holder.id)) continue;
      states.set(holder.id, state);
    }
    for (const step of steps) {
      const refusal = controls.soakRefusal(step.node, [step], now);
      if (refusal)
        states.set(step.node.id, {
          node: step.node.id,
          state: 'soaking',
          gate: refusal.control,
          until: refusal.until,
        });
    }
    return [...states.values()].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  }
}

/** The steps the read found ended lately, as the soak reads them, with the policy each enacted. */
export function endedSteps(rows: readonly EndedStepRow[] | null): SoakingStep[] {
  return (rows ?? []).map(({ ended_at, management_policy, ...node }) => ({
    node,
    endedAt: new Date(ended_at),
    managementPolicy: management_policy,
  }));
}
