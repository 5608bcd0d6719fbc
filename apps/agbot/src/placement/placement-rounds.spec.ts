import { type ExchangeMirror } from '../mirror/exchange-mirror';
import { type MirroredNode } from '../mirror/mirrored-node';
import { type RolloutState } from '../rollout/rollout.types';
import { PlacementEngine } from './placement-engine';
import { aNode, aPolicy, aService } from './placement.fixtures';
import { PlacementRounds, type Round, type RoundSettings } from './placement-rounds';
import { type PlacedWorkloads, scopedKey } from './placement.types';

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
  let published: Map<string, PlacedWorkloads>;
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

  describe('records in which state of the node it placed', () => {
    /** The mirror as the loop reads it, over the spec's nodes. */
    const mirror = {
      findNodes: async (keys: readonly (readonly [string, string])[]) =>
        keys.flatMap(([org, id]) => nodes.get(scopedKey(org, id)) ?? []),
    } as unknown as ExchangeMirror;

    /** Cordons or uncordons n1 and runs one round over the change; answers what it recorded of n1. */
    async function setN1(schedulable: boolean): Promise<PlacedWorkloads | undefined> {
      nodes.set(scopedKey('acme', 'n1'), { ...nodes.get(scopedKey('acme', 'n1'))!, schedulable });
      const active = await rounds.absorb(
        { nodes: new Set([scopedKey('acme', 'n1')]), policies: new Set(), services: false, groups: false },
        mirror,
      );
      const round = rounds.plan(active, settings);
      rounds.commit(round);
      return round.changed.find((entry) => entry.node === 'n1');
    }

    it('writes the node again with the state it was placed in, as its workloads leave and come back', async () => {
      settleAt('1.0.0');
      expect(published.get(scopedKey('acme', 'n1'))?.schedulable).toBe(true);
      expect(await setN1(false)).toEqual({ org: 'acme', node: 'n1', workloads: [], schedulable: false });
      const back = await setN1(true);
      expect([back?.schedulable, back?.workloads.map((each) => each.deploymentPolicy)]).toEqual([
        true,
        ['web'],
      ]);
    });

    it('writes a node whose workloads stay the same when it is cordoned and uncordoned, once each', async () => {
      settleAt('1.0.0');
      engine.removePolicy('acme', 'web');
      rounds.commit(rounds.plan(new Set([WEB]), settings));
      expect(await setN1(false)).toEqual({ org: 'acme', node: 'n1', workloads: [], schedulable: false });
      expect(rounds.plan(new Set(), settings).changed).toEqual([]);
      expect(await setN1(true)).toEqual({ org: 'acme', node: 'n1', workloads: [], schedulable: true });
      expect(rounds.plan(new Set(), settings).changed).toEqual([]);
    });

    it('writes again, at start, a node cordoned after its record was written', () => {
      settleAt('1.0.0');
      nodes.set(scopedKey('acme', 'n2'), { ...nodes.get(scopedKey('acme', 'n2'))!, schedulable: false });
      const restarted = new PlacementRounds(engine, nodes, published, new Map<string, RolloutState>());
      const round = restarted.plan(new Set(), settings);
      expect(round.changed.map((entry) => [entry.node, entry.schedulable])).toEqual([['n2', false]]);
    });
  });
});
