import { type MirroredNode } from '../mirror/mirrored-node';
import { type RolloutState } from '../rollout/rollout.types';
import { PlacementEngine } from './placement-engine';
import { aNode, aPolicy, aService } from './placement.fixtures';
import { PlacementRounds, type Round, type RoundSettings } from './placement-rounds';
import { type NodeWorkloads, scopedKey } from './placement.types';

const now = new Date('2026-03-01T12:00:00.000Z');
const settings: RoundSettings = {
  now,
  parallelism: 1,
  memberDeadlineMs: 600_000,
  heartbeatTimeoutMs: 60_000,
};
const WEB = scopedKey('acme', 'web');

/** A mirrored node in HA group `g`, reporting the service at `running` (or nothing) just now. */
function mirrored(id: string, running?: string): MirroredNode {
  return {
    ...aNode(id, { haGroup: 'g' }),
    pattern: null,
    status: {
      lastHeartbeat: now.toISOString(),
      workloads: running
        ? [
            {
              deploymentPolicy: 'web',
              service: { org: 'acme', url: 'acme.web', version: running },
              state: 'running',
            },
          ]
        : [],
    },
  };
}

const versionsOf = (round: Round) =>
  Object.fromEntries(
    round.changed.map((entry) => [entry.node, entry.workloads.map((workload) => workload.service.version)]),
  );

describe('PlacementRounds', () => {
  let engine: PlacementEngine;
  let nodes: Map<string, MirroredNode>;
  let published: Map<string, NodeWorkloads>;
  let rounds: PlacementRounds;

  beforeEach(() => {
    engine = new PlacementEngine(() => now);
    nodes = new Map(['n1', 'n2', 'n3'].map((id) => [scopedKey('acme', id), mirrored(id)]));
    published = new Map();
    engine.load({
      nodes: nodes.values(),
      policies: [aPolicy('web')],
      services: [aService('1.0.0')],
      current: [],
    });
    rounds = new PlacementRounds(engine, nodes, published, new Map<string, RolloutState>());
  });

  /** Publishes round one and has every node report it running. */
  function settleAt(version: string): void {
    rounds.commit(rounds.plan(new Set([WEB]), settings));
    for (const id of ['n1', 'n2', 'n3']) nodes.set(scopedKey('acme', id), mirrored(id, version));
  }

  it('places a new policy on every node that matches, all at once', () => {
    const round = rounds.plan(new Set([WEB]), settings);
    expect(versionsOf(round)).toEqual({ n1: ['1.0.0'], n2: ['1.0.0'], n3: ['1.0.0'] });
    expect(published.size).toBe(0);
    rounds.commit(round);
    expect([...published.keys()].sort()).toEqual(['n1', 'n2', 'n3'].map((id) => scopedKey('acme', id)));
  });

  it('moves a new version one member at a time, and keeps the rollout active until all run it', () => {
    settleAt('1.0.0');
    engine.setServices([aService('1.0.0'), aService('2.0.0')]);
    const first = rounds.plan(new Set([WEB]), settings);
    expect(Object.values(versionsOf(first))).toEqual([['2.0.0']]);
    expect(first.stillActive.has(WEB)).toBe(true);
    expect(first.rollouts.get(WEB)).toBeDefined();
    rounds.commit(first);
    // Nobody reported the new version yet: the next round moves no one else.
    expect(rounds.plan(new Set([WEB]), settings).changed).toEqual([]);
  });

  it('takes the workload off the nodes of a policy that is gone', () => {
    settleAt('1.0.0');
    engine.removePolicy('acme', 'web');
    const round = rounds.plan(new Set([WEB]), settings);
    expect(versionsOf(round)).toEqual({ n1: [], n2: [], n3: [] });
    expect(round.rollouts.get(WEB)).toBeUndefined();
    expect(round.stillActive.has(WEB)).toBe(false);
  });

  it('leaves alone a policy that is not active: its nodes keep what was published', () => {
    settleAt('1.0.0');
    engine.setServices([aService('1.0.0'), aService('2.0.0')]);
    expect(rounds.plan(new Set(), settings).changed).toEqual([]);
  });
});
