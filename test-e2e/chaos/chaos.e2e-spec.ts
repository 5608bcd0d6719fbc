/**
 * The chaos run: the whole platform as separate processes, every service replicated, on a
 * three-node JetStream cluster, with agent rollouts, maintenance sessions, rolled service
 * upgrades and a deployment strategy's rollouts under way, while faults of every kind are
 * injected at random moments from a seed it prints. Afterwards, from recorded timelines,
 * samples and the final state: invariants 1, 2, 3, 4, 6 and 7 hold, no event is lost, no work
 * is stuck, every dead letter and failure says why, and no client saw a 500. The table goes to
 * the output.
 *
 * `npm test` runs it short (CAREEN_CHAOS_SECONDS, 60 by default); `npm run chaos -- --minutes N
 * [--seed S]` runs it long, or again with the seed of a run that failed.
 */
import { basic, seededRandom } from '@careen/testing';
import { randomInt } from 'node:crypto';
import {
  changesAppliedOnce,
  everyChangeAudited,
  deadLettersExplained,
  dependenciesKept,
  failuresExplained,
  groupsAgreeWithNodes,
  hostsEmptiedFirst,
  latestChange,
  no500s,
  nothingStuck,
  oneMemberDownPerGroup,
  type Check,
} from './chaos-checks';
import { ChaosPlatform, ROOT_PASSWORD, type HubServiceName } from './chaos-platform';
import { chaosReport } from './chaos-report';
import { ChaosWork, REPLY_TIMEOUT_SECONDS } from './chaos-work';
import { FAULT_KINDS, FaultScheduler } from './fault-scheduler';
import { HttpStatusCounter } from './http-status-counter';
import { ProgressLog, WORK_KINDS, type WorkKind } from './progress-log';
import { steadyClient } from './steady-client';
import { whyStuck } from './stuck-work';

const FAULT_SECONDS = Number(process.env.CAREEN_CHAOS_SECONDS ?? 60);
const SEED = Number(process.env.CAREEN_CHAOS_SEED ?? randomInt(1, 2 ** 31));
/** Once the faults stop, how long the work under way may take to end. */
const SETTLE_MS = 120_000;
/**
 * Work still under way that has not moved for this long is stuck: twice the longest quiet the
 * work makes by design, so that a session waiting out a reply timeout is not taken for stuck.
 */
const STUCK_AFTER_MS = 2 * REPLY_TIMEOUT_SECONDS * 1000;

describe('chaos: faults at random moments over the whole replicated platform', () => {
  const statuses = new HttpStatusCounter();
  const platform = new ChaosPlatform(statuses);
  const progress = new ProgressLog();
  const work = new ChaosWork(platform, progress, SEED);
  const faults = new FaultScheduler(platform, seededRandom(SEED));

  beforeAll(async () => {
    process.stdout.write(`chaos run: seed ${SEED}, ${FAULT_SECONDS} s of faults\n`);
    await platform.start();
    await work.setUp();
  }, 300_000);

  afterAll(async () => {
    await work.stop();
    await platform.stop();
  }, 120_000);

  it(
    'keeps every invariant, loses nothing and leaves no work stuck',
    async () => {
      const sinceChange = await latestChange(platform.postgres.url);
      const started = new Date();
      work.start();
      await faults.run(Date.now() + FAULT_SECONDS * 1000);
      await work.finish(SETTLE_MS);

      const root = steadyClient(() => platform.url('exchange'), basic('root', 'root', ROOT_PASSWORD));
      const changes = await changesAppliedOnce(platform.postgres.url, sinceChange);
      const audit = await everyChangeAudited(platform.postgres.url, started);
      const deadLetters = await deadLettersExplained(platform);
      const of = (kind: WorkKind) => work.items.filter((item) => item.kind === kind);
      const stuck = nothingStuck(work.items, (item) => progress.last(item.kind), STUCK_AFTER_MS);
      const checks: Check[] = [
        {
          name: '1: one member of an HA group down at once (upgrades, maintenance)',
          violations: [
            ...oneMemberDownPerGroup(work.edge, of('maintenance')),
            ...oneMemberDownPerGroup(work.core, []),
          ],
        },
        { name: '2: a member of each HA group runs the service rolled', violations: work.outages },
        {
          name: '3: HA groups and their nodes agree',
          violations: [
            ...(await groupsAgreeWithNodes(root, 'edge')),
            ...(await groupsAgreeWithNodes(root, 'core')),
          ],
        },
        {
          name: '4: every committed change applied once, every event published',
          violations: changes.violations,
        },
        {
          name: '6: no rollout group before its dependencies',
          violations: dependenciesKept(work.core, of('strategy-rollout')),
        },
        {
          name: '7: no host in maintenance before its projects answered',
          violations: hostsEmptiedFirst(of('maintenance')),
        },
        {
          name: 'work ended or still moving, failures with a reason',
          violations: [...stuck, ...failuresExplained(work.items)],
        },
        {
          name: `every change and action in the audit trail once (${audit.audited} checked)`,
          violations: audit.violations,
        },
        { name: 'dead letters with a reason', violations: deadLetters.violations },
        { name: 'no HTTP 500 seen by a client', violations: no500s(statuses) },
        { name: "the run's own calls and restarts", violations: [...work.incidents, ...faults.incidents] },
      ];
      process.stdout.write(
        `\n${chaosReport({
          seed: SEED,
          faultSeconds: FAULT_SECONDS,
          faults: faults.injected,
          progress,
          checks,
          eventsLost: changes.lost,
          changesChecked: changes.changes,
          deadLetters: deadLetters.count,
          statuses: statuses.byService(),
          work: work.items,
        })}\n\n`,
      );

      // What a service that answered 500 printed says why.
      for (const [service, counts] of Object.entries(statuses.byService()))
        if (counts[500])
          for (const replica of platform.services.get(service as HubServiceName)!.replicas)
            process.stdout.write(`${service} on port ${replica.port} printed:\n${replica.output}\n`);

      // Who leads what, and what each outbox still holds, when something was lost.
      if (changes.lost > 0)
        for (const service of platform.services.values())
          for (const replica of service.replicas) {
            const metrics = await fetch(`${replica.url}/metrics`).then(
              (response) => response.text(),
              (error: unknown) => String(error),
            );
            const lines = metrics
              .split('\n')
              .filter((line) => /^careen_(leader|outbox_backlog)\b/.test(line));
            process.stdout.write(`${service.name} on port ${replica.port}: ${lines.join('; ')}\n`);
          }

      if (stuck.length > 0) {
        const agbot = steadyClient(() => platform.url('agbot'), basic('root', 'root', ROOT_PASSWORD));
        const open = work.items.filter((item) => item.outcome === 'open');
        for (const line of await whyStuck(open, agbot, 'edge', work.edge)) process.stdout.write(`${line}\n`);
      }

      for (const check of checks) expect([check.name, check.violations]).toEqual([check.name, []]);
      // The run did what it is for: every kind of fault, and every kind of work done at least once.
      for (const kind of FAULT_KINDS) expect(faults.injected.map((fault) => fault.kind)).toContain(kind);
      for (const kind of WORK_KINDS)
        expect([kind, work.items.some((item) => item.kind === kind && item.outcome === 'completed')]).toEqual(
          [kind, true],
        );
    },
    FAULT_SECONDS * 1000 + SETTLE_MS + 120_000,
  );
});
