import { createLogger } from '@careen/telemetry';
import { type ChangePage, type FeedChange, type ManagementPolicy } from '../exchange/exchange.types';
import { ApiError } from '@careen/api-client';
import { type AgentMemory } from '../state/agent-memory';
import { MemoryStateStore } from '../state/state-store';
import { agentMemory, managementPolicy } from '../testing/agent-state.fixture';
import { ChangeFollower, type FeedSource } from './change-follower';

const policy = (name: string, version: string): ManagementPolicy =>
  managementPolicy(name, { constraints: [] }, { atLeastVersion: version });

const policyChange = (id: number, data: object): FeedChange => ({
  id,
  org: 'acme',
  resource: 'managementPolicy',
  resourceId: 'up',
  operation: 'updated',
  changedAt: '2026-03-01T10:00:00.000Z',
  data: data as FeedChange['data'],
});

/** Node edge-1's management status of policy up, as a change carries it. */
const upStatus = <S extends string>(status: S, attempt: number) => ({
  org: 'acme',
  node: 'edge-1',
  nmp: 'up',
  status,
  attempt,
  updated: '2026-03-01T10:00:00.000Z',
});

/** A feed in memory: the head, the policies a fresh read lists, and the pages polls answer. */
class MemoryFeed implements FeedSource {
  head = 10;
  policies: ManagementPolicy[] = [policy('up', '1.0.0')];
  readonly pages: (ChangePage | ApiError)[] = [];
  readonly polledFrom: number[] = [];

  changes(since: number): Promise<ChangePage> {
    this.polledFrom.push(since);
    const page = this.pages.shift() ?? { changes: [], lastId: since };
    return page instanceof ApiError ? Promise.reject(page) : Promise.resolve(page);
  }

  changeHead(): Promise<number> {
    return Promise.resolve(this.head);
  }

  managementPolicies(): Promise<ManagementPolicy[]> {
    return Promise.resolve(this.policies);
  }
}

describe('ChangeFollower', () => {
  const never = new AbortController().signal;
  let feed: MemoryFeed;
  let store: MemoryStateStore;
  let memory: AgentMemory;
  let lines: { msg: string; problem?: string }[];
  let follower: ChangeFollower;

  beforeEach(() => {
    feed = new MemoryFeed();
    store = new MemoryStateStore();
    memory = agentMemory({}, store);
    lines = [];
    const destination = { write: (line: string) => lines.push(JSON.parse(line)) };
    follower = new ChangeFollower(feed, memory, createLogger('agent', { destination }));
  });

  it('starts from the head with the policies listed, and saves both', async () => {
    expect(follower.lost).toBe(true);
    await follower.readAfresh();
    expect(follower.lost).toBe(false);
    const saved = await store.load();
    expect(saved?.changeCursor).toBe(10);
    expect(Object.keys(saved?.policies ?? {})).toEqual(['up']);
  });

  it('applies a valid policy change, moves the cursor past the page and saves it', async () => {
    await follower.readAfresh();
    feed.pages.push({ changes: [policyChange(11, policy('up', '2.0.0'))], lastId: 12 });
    const page = await follower.poll(30, never);
    expect(page.changes.map((change) => change.id)).toEqual([11]);
    expect(memory.state.policies?.up?.agentUpgradePolicy?.atLeastVersion).toBe('2.0.0');
    expect((await store.load())?.changeCursor).toBe(12);
    await follower.poll(30, never);
    expect(feed.polledFrom).toEqual([10, 12]);
  });

  it('tells resets, packages and node changes as news', async () => {
    await follower.readAfresh();
    const base = { org: 'acme', changedAt: '2026-03-01T10:00:00.000Z', operation: 'updated' } as const;
    feed.pages.push({
      changes: [
        {
          ...base,
          id: 11,
          resource: 'agentPackage',
          resourceId: '2.0.0',
          data: { version: '2.0.0', sha256: 'ab' },
        },
        {
          ...base,
          id: 12,
          resource: 'managementStatus',
          resourceId: 'edge-1',
          data: upStatus('reset', 2),
        },
        {
          ...base,
          id: 13,
          resource: 'node',
          resourceId: 'edge-1',
          data: {
            org: 'acme',
            id: 'edge-1',
            haGroup: null,
            schedulable: true,
            status: null,
            updatedAt: base.changedAt,
          },
        },
      ],
      lastId: 13,
    });
    const { news } = await follower.poll(30, never);
    expect(news).toEqual({
      packagesChanged: true,
      nodeUpdates: [base.changedAt],
      nodeDeleted: false,
      resets: ['up'],
    });
  });

  it.each([
    [
      'data that breaks its resource contract',
      policyChange(12, { org: 'acme', name: 'up', enabled: 'yes' }),
      'enabled',
    ],
    [
      'an unknown resource',
      { ...policyChange(12, {}), resource: 'gadget' } as unknown as FeedChange,
      'resource',
    ],
    ['no id', { ...policyChange(12, policy('up', '3.0.0')), id: 'twelve' } as unknown as FeedChange, 'id'],
    [
      'a management status it does not know, in a change its compiled check refuses',
      {
        ...policyChange(12, {}),
        resource: 'managementStatus',
        resourceId: 'edge-1',
        data: upStatus('exploded', 1),
      } as unknown as FeedChange,
      'status',
    ],
  ])(
    'never applies a change with %s: keeps what came before it, says why and reads afresh',
    async (_, bad, field) => {
      await follower.readAfresh();
      feed.pages.push({
        changes: [policyChange(11, policy('up', '2.0.0')), bad, policyChange(13, policy('up', '4.0.0'))],
        lastId: 13,
      });
      const page = await follower.poll(30, never);
      expect(page.changes.map((change) => change.id)).toEqual([11]);
      expect(memory.state.policies?.up?.agentUpgradePolicy?.atLeastVersion).toBe('2.0.0');
      expect(follower.lost).toBe(true);
      expect((await store.load())?.changeCursor).toBeUndefined();
      const warning = lines.find((line) => line.msg === 'a change breaks its contract; reading afresh');
      expect(warning?.problem).toContain(field);
      feed.head = 13;
      feed.policies = [policy('up', '4.0.0')];
      await follower.readAfresh();
      expect(memory.state.policies?.up?.agentUpgradePolicy?.atLeastVersion).toBe('4.0.0');
      expect(memory.state.changeCursor).toBe(13);
    },
  );

  it('reads afresh when the feed has moved past the cursor (410), and rethrows anything else', async () => {
    await follower.readAfresh();
    feed.pages.push(new ApiError(410, undefined, 'http://exchange/v1/orgs/acme/changes'));
    expect((await follower.poll(30, never)).changes).toEqual([]);
    expect(follower.lost).toBe(true);
    await follower.readAfresh();
    feed.pages.push(new ApiError(503, undefined, 'http://exchange/v1/orgs/acme/changes'));
    await expect(follower.poll(30, never)).rejects.toMatchObject({ status: 503 });
    expect(follower.lost).toBe(false);
  });
});
