/**
 * Inputs for one session that arrive together, or while a step of it is being stored, are taken
 * in one transaction, in the order they came, each decided on the session as the ones before it
 * left it: twenty projects answering one ask cost one lock of the session's row, and a refused
 * reply among them leaves the others taken.
 */
import { OutboxWriter } from '@careen/persistence';
import { AuditTrail } from '@careen/service';
import { useTestInfra } from '@careen/testing';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { maintenanceDataSource } from '../maintenance-data-source.fixtures';
import { type PlannedProject } from '../workflow/workflow.types';
import { newCapabilityKey } from './capability';
import { readReply } from './reply-gate';
import { type SessionRecord } from './session-record';
import { SessionSteps } from './session-steps';
import { SessionStore } from './session-store';

const PROJECTS = Array.from({ length: 20 }, (_, i) => `p${i}`);

describe('a session’s inputs taken together', () => {
  const infra = useTestInfra();
  let dataSource: DataSource;
  let store: SessionStore;
  let steps: SessionSteps;
  /** Who the caller is, as a request's context says it: every outbox message is stamped with it. */
  const caller = new AsyncLocalStorage<string>();

  beforeAll(async () => {
    dataSource = await maintenanceDataSource(infra.databaseUrl, 'session-steps');
    store = new SessionStore(dataSource);
    const outbox = new OutboxWriter('maintenance_session', () => ({
      'test-caller': caller.getStore() ?? '',
    }));
    steps = new SessionSteps(
      dataSource,
      store,
      outbox,
      new AuditTrail(outbox, 'maintenance-session'),
      () => 'http://maintenance.test',
    );
  });

  afterAll(() => dataSource.destroy());
  afterEach(() => jest.restoreAllMocks());

  /** A session of one host on which each project has an instance: all are asked MAINTENANCE. */
  const newSession = async (): Promise<SessionRecord> => {
    const project = (id: string): PlannedProject => ({
      id,
      subscribed: true,
      replyTimeoutSeconds: 600,
      onNoAck: 'proceed',
    });
    const host = `h-${randomUUID()}`;
    return steps.create({
      id: randomUUID(),
      org: 'acme',
      createdBy: 'ada',
      createdAt: new Date(),
      updatedAt: new Date(),
      paused: false,
      hostAction: { kind: 'manual' },
      metadata: {},
      plan: {
        hosts: [{ id: host, haGroup: null }],
        instances: PROJECTS.map((id) => ({ id: `web@${id}`, project: id, host })),
        projects: PROJECTS.map(project),
        // Far off: the session waits in MAINTENANCE for the replies.
        actionsAt: new Date(Date.now() + 3_600_000).toISOString(),
        maxParallelHosts: 1,
      },
      capabilityKey: newCapabilityKey(),
      closedAt: null,
    });
  };
  const answer = (session: string, project: string, state: string) => {
    const { input, gate } = readReply(session, project, { state }, 'bus');
    return steps.apply(session, input, gate);
  };
  const ack = (session: string, project: string) => answer(session, project, 'ACK_MAINTENANCE');
  const answers = async (session: string) =>
    Object.fromEntries(
      (await store.get(session))!.progress.asks
        .filter((ask) => ask.state === 'MAINTENANCE')
        .map((ask) => [ask.project, ask.answer]),
    );
  const received = async (session: string) =>
    (await store.readTimeline(session))
      .filter((entry) => entry.kind === 'received')
      .map((entry) => entry.project);

  it('takes twenty replies given at once in one transaction, in the order given', async () => {
    const session = await newSession();
    const transactions = jest.spyOn(dataSource, 'transaction');
    const order = [...PROJECTS].reverse();

    const after = await Promise.all(order.map((project) => ack(session.id, project)));

    expect(transactions).toHaveBeenCalledTimes(1);
    expect(await answers(session.id)).toEqual(Object.fromEntries(PROJECTS.map((id) => [id, 'ack'])));
    expect(await received(session.id)).toEqual(order);
    // Their audit records are on the outbox in the same order.
    const audited = (await dataSource.query(
      `SELECT payload->>'target' AS target FROM maintenance_session.outbox
        WHERE payload->>'action' = 'session.reply.ACK_MAINTENANCE' AND payload->>'target' LIKE $1 ORDER BY id`,
      [`session/${session.id}/project/%`],
    )) as { target: string }[];
    expect(audited.map((row) => row.target.split('/').pop())).toEqual(order);
    // Each caller is answered the session as its own reply left it.
    expect(after.map((record) => record.progress.asks.filter((ask) => ask.answer === 'ack').length)).toEqual(
      order.map((_, index) => index + 1),
    );
  });

  it('stamps each input’s audit record with its own caller’s context, not the first’s', async () => {
    const session = await newSession();
    const transactions = jest.spyOn(dataSource, 'transaction');

    await Promise.all(
      ['p0', 'p1', 'p2'].map((project) => caller.run(`vnfm-${project}`, () => ack(session.id, project))),
    );

    expect(transactions).toHaveBeenCalledTimes(1);
    const stamped = (await dataSource.query(
      `SELECT payload->>'target' AS target, headers->>'test-caller' AS caller FROM maintenance_session.outbox
        WHERE payload->>'action' = 'session.reply.ACK_MAINTENANCE' AND payload->>'target' LIKE $1 ORDER BY id`,
      [`session/${session.id}/project/%`],
    )) as { target: string; caller: string }[];
    expect(stamped.map((row) => [row.target.split('/').pop(), row.caller])).toEqual([
      ['p0', 'vnfm-p0'],
      ['p1', 'vnfm-p1'],
      ['p2', 'vnfm-p2'],
    ]);
  });

  it('refuses a reply it cannot take and still takes the others of its transaction', async () => {
    const session = await newSession();
    const transactions = jest.spyOn(dataSource, 'transaction');

    const outcomes = await Promise.allSettled([
      ack(session.id, 'p0'),
      answer(session.id, 'p0', 'NACK_MAINTENANCE'),
      ack(session.id, 'stranger'),
      ack(session.id, 'p1'),
    ]);

    expect(transactions).toHaveBeenCalledTimes(1);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(
      /project "p0" was asked MAINTENANCE and that ask is closed \(ack\)/,
    );
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(
      /project "stranger" has no instances in this session/,
    );
    const taken = await answers(session.id);
    expect([taken.p0, taken.p1, taken.p2]).toEqual(['ack', 'ack', 'pending']);
    expect(await received(session.id)).toEqual(['p0', 'p1']);
  });

  it('takes a reply given again as the answer already taken, and refuses one that answers otherwise', async () => {
    const session = await newSession();
    await ack(session.id, 'p0');
    const timeline = await store.readTimeline(session.id);

    // Given again, as a bus message after a crash between its step's commit and its acknowledgement.
    await expect(ack(session.id, 'p0')).resolves.toBeDefined();
    expect(await store.readTimeline(session.id)).toEqual(timeline);
    expect((await answers(session.id)).p0).toBe('ack');

    // Answering otherwise is a second reply to a closed ask.
    await expect(answer(session.id, 'p0', 'NACK_MAINTENANCE')).rejects.toThrow(/that ask is closed \(ack\)/);
  });

  it('takes what came while a step was being stored in the next transaction, together', async () => {
    const session = await newSession();
    const transactions = jest.spyOn(dataSource, 'transaction');
    // Another replica holds the session's row: the first reply's step waits for it.
    const other = dataSource.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    await other.query('SELECT 1 FROM maintenance_session.sessions WHERE id = $1 FOR UPDATE', [session.id]);
    try {
      const first = ack(session.id, 'p0');
      await waitedForLock(dataSource);
      const rest = PROJECTS.slice(1).map((project) => ack(session.id, project));
      await other.commitTransaction();
      await Promise.all([first, ...rest]);
    } finally {
      await other.release();
    }

    expect(transactions).toHaveBeenCalledTimes(2);
    expect(await answers(session.id)).toEqual(Object.fromEntries(PROJECTS.map((id) => [id, 'ack'])));
    expect(await received(session.id)).toEqual(PROJECTS);
  });

  it('answers its callers and takes later inputs even when waking the driver fails', async () => {
    const session = await newSession();
    steps.onStep = () => {
      throw new Error('the driver is gone');
    };
    try {
      await ack(session.id, 'p0');
    } finally {
      steps.onStep = undefined;
    }
    await ack(session.id, 'p1');
    const taken = await answers(session.id);
    expect([taken.p0, taken.p1]).toEqual(['ack', 'ack']);
  });

  it('fails every input of a transaction that fails, and the next ones are taken anew', async () => {
    const missing = randomUUID();
    const outcomes = await Promise.allSettled([ack(missing, 'p0'), ack(missing, 'p1')]);
    expect(outcomes.map((outcome) => String((outcome as PromiseRejectedResult).reason))).toEqual([
      expect.stringMatching(/no maintenance session/),
      expect.stringMatching(/no maintenance session/),
    ]);

    const session = await newSession();
    await ack(session.id, 'p0');
    expect((await answers(session.id)).p0).toBe('ack');
  });
});

/** Until a statement of this database waits for a row lock. */
async function waitedForLock(dataSource: DataSource): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const [{ waiting }] = (await dataSource.query(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    )) as [{ waiting: number }];
    if (waiting > 0) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('no statement came to wait for the row lock');
}
