import { type RepliedState, type ReplyTimeoutPolicy } from '@careen/contracts';
import { MaintenanceWorkflow } from './maintenance-workflow';
import {
  type PlannedProject,
  type SessionPlan,
  type SessionProgress,
  type WorkflowCommand,
  type WorkflowInput,
} from './workflow.types';

const T0 = new Date('2026-12-01T02:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** h1 and h2 share HA group g; h3 and h4 are in none. p1 and p2 listen; p3 does not. */
function plan(
  overrides: Partial<SessionPlan> = {},
  policies: Record<string, ReplyTimeoutPolicy> = {},
): SessionPlan {
  const project = (id: string, subscribed = true): PlannedProject => ({
    id,
    subscribed,
    replyTimeoutSeconds: 60,
    onNoAck: policies[id] ?? 'proceed',
  });
  return {
    hosts: [
      { id: 'h1', haGroup: 'g' },
      { id: 'h2', haGroup: 'g' },
      { id: 'h3', haGroup: null },
      { id: 'h4', haGroup: null },
    ],
    instances: [
      { id: 'web@h1', project: 'p1', host: 'h1' },
      { id: 'web@h3', project: 'p1', host: 'h3' },
      { id: 'db@h2', project: 'p2', host: 'h2' },
      { id: 'db@h4', project: 'p2', host: 'h4' },
      { id: 'cache@h1', project: 'p3', host: 'h1' },
    ],
    projects: [project('p1'), project('p2'), project('p3', false)],
    actionsAt: at(30).toISOString(),
    maxParallelHosts: 2,
    ...overrides,
  };
}

const told = (commands: readonly WorkflowCommand[]) =>
  commands.map((command) => {
    switch (command.kind) {
      case 'tell-project':
        return `${command.project} ${command.state}${command.host ? ` ${command.host}` : ''}`;
      case 'tell-admin':
        return `admin ${command.state} ${command.host}`;
      case 'take-slot':
      case 'release-slot':
      case 'cordon':
      case 'uncordon':
      case 'start-host-action':
        return `${command.kind} ${command.host}`;
    }
  });

/**
 * Carries the commands out the way a cooperative world would: slots granted, hosts emptied,
 * host actions done, hosts back in service serving, each at once; projects answer with `answer` (default ACK).
 */
class World {
  readonly log: string[] = [];
  progress: SessionProgress;
  private readonly queue: WorkflowInput[] = [];
  now = T0;

  constructor(
    readonly workflow: MaintenanceWorkflow,
    private readonly answer: (
      project: string,
      state: RepliedState,
      host: string | null,
    ) => boolean | 'silent' = () => true,
  ) {
    const step = workflow.start(this.now);
    this.progress = step.progress;
    this.take(step.commands);
  }

  /** Feeds the world's reactions in until nothing is left, then moves the clock to `time`. */
  runUntil(seconds: number): void {
    for (;;) {
      const input = this.queue.shift();
      if (input) {
        this.step(input);
        continue;
      }
      const due = this.workflow.nextDeadline(this.progress);
      if (!due || due.getTime() > at(seconds).getTime()) break;
      this.now = due;
      this.step({ kind: 'tick' });
    }
  }

  private step(input: WorkflowInput): void {
    const next = this.workflow.advance(this.progress, input, this.now);
    this.progress = next.progress;
    this.take(next.commands);
  }

  private take(commands: readonly WorkflowCommand[]): void {
    this.log.push(...told(commands));
    for (const command of commands) {
      if (command.kind === 'take-slot') this.queue.push({ kind: 'slot-granted', host: command.host });
      if (command.kind === 'cordon') this.queue.push({ kind: 'host-empty', host: command.host });
      if (command.kind === 'start-host-action')
        this.queue.push({ kind: 'host-action-done', host: command.host });
      if (command.kind === 'uncordon') this.queue.push({ kind: 'host-serving', host: command.host });
      if (command.kind === 'tell-project' && command.deadline) {
        const reply = this.answer(command.project, command.state as RepliedState, command.host);
        if (reply !== 'silent')
          this.queue.push({
            kind: 'reply',
            project: command.project,
            state: command.state as RepliedState,
            ack: reply,
          });
      }
    }
  }
}

/** Hosts of group g holding their slot at once, at any point of the log. */
function mostOfGroupDown(log: readonly string[]): number {
  const down = new Set<string>();
  let most = 0;
  for (const line of log) {
    const [kind, host] = line.split(' ');
    if (host !== 'h1' && host !== 'h2') continue;
    if (kind === 'take-slot') down.add(host);
    if (kind === 'release-slot') down.delete(host);
    most = Math.max(most, down.size);
  }
  return most;
}

describe('the maintenance workflow', () => {
  it('tells the listening projects MAINTENANCE, due at actions_at, and waits for it even when all have answered', () => {
    const workflow = new MaintenanceWorkflow(plan());
    const { progress, commands } = workflow.start(T0);
    expect(told(commands)).toEqual(['p1 MAINTENANCE', 'p2 MAINTENANCE']);
    expect(commands[0]).toMatchObject({ deadline: at(30).toISOString(), instances: ['web@h1', 'web@h3'] });
    let next = workflow.advance(
      progress,
      { kind: 'reply', project: 'p1', state: 'MAINTENANCE', ack: true },
      at(1),
    );
    next = workflow.advance(
      next.progress,
      { kind: 'reply', project: 'p2', state: 'MAINTENANCE', ack: true },
      at(2),
    );
    expect(next.progress.state).toBe('MAINTENANCE');
    expect(next.commands).toEqual([]);
    expect(workflow.nextDeadline(next.progress)).toEqual(at(30));
    const started = workflow.advance(next.progress, { kind: 'tick' }, at(30));
    expect(started.progress.state).toBe('PREPARE_MAINTENANCE');
    // Two at once, but never two of group g: h2 waits for h1.
    expect(told(started.commands)).toEqual(['take-slot h1', 'take-slot h3']);
  });

  describe('with constraints declared', () => {
    const workflow = (overrides: Partial<SessionPlan>) => new MaintenanceWorkflow(plan(overrides));
    const group = (maxImpacted: number, recoverySeconds: number, instances = ['web@h1', 'web@h3']) => ({
      instanceGroups: [{ id: 'G', project: 'p1', maxImpacted, recoverySeconds, instances }],
      maxParallelHosts: 4,
    });

    it('starts no host that would impact more of a group than it allows, and waits out its recovery', () => {
      const world = new World(new MaintenanceWorkflow(plan(group(1, 20))));
      const first = workflow(group(1, 20));
      const started = first.advance(first.start(T0).progress, { kind: 'tick' }, at(30));
      expect(first.waitReasons(started.progress, at(30))).toEqual(
        new Map([['h3', 'instance group G (project p1) has 1 of its instances under way, 1 at most']]),
      );
      world.runUntil(49);
      expect(world.workflow.waitReasons(world.progress, world.now).get('h3')).toMatch(
        /^instance group G \(project p1\) recovers until /,
      );
      // h1 and h3 both hold an instance of G: h3 waits while h1 is under way, then 20 s more.
      expect(world.log.slice(0, world.log.indexOf('take-slot h1') + 3)).toEqual(
        expect.arrayContaining(['take-slot h1', 'take-slot h4']),
      );
      expect(world.log).not.toContain('take-slot h3');
      expect(world.progress.hosts.h1!.phase).toBe('done');
      expect(world.progress.hosts.h3!.phase).toBe('waiting');
      world.runUntil(600);
      expect(world.progress.state).toBe('MAINTENANCE_DONE');
      const h1Done = Date.parse(world.progress.hosts.h1!.since);
      const h3Started = world.log.indexOf('take-slot h3');
      expect(h3Started).toBeGreaterThan(world.log.indexOf('release-slot h1'));
      expect(Date.parse(world.progress.hosts.h3!.since)).toBeGreaterThanOrEqual(h1Done + 20_000);
    });

    it('starts them together when the group allows as many impacted', () => {
      const workflow = new MaintenanceWorkflow(plan(group(2, 0)));
      const { progress } = workflow.start(T0);
      const started = workflow.advance(progress, { kind: 'tick' }, at(30));
      expect(told(started.commands)).toEqual(['take-slot h1', 'take-slot h3', 'take-slot h4']);
    });

    it("gives a host's projects at least the lead time their instances there declared", () => {
      const limits = { leadSeconds: 300, maxInterruptionSeconds: 0, migrationType: 'MIGRATE' };
      const workflow = new MaintenanceWorkflow(plan({ instanceLimits: { 'web@h1': limits } }));
      const started = workflow.advance(workflow.start(T0).progress, { kind: 'tick' }, at(30));
      const granted = workflow.advance(started.progress, { kind: 'slot-granted', host: 'h1' }, at(31));
      const asked = granted.commands.find((each) => each.kind === 'tell-project' && each.project === 'p1');
      // p1's reply timeout is 60 s; web@h1 needs 300.
      expect(asked).toMatchObject({ state: 'PREPARE_MAINTENANCE', deadline: at(331).toISOString() });
      const p2 = workflow.advance(started.progress, { kind: 'slot-granted', host: 'h3' }, at(31));
      expect(p2.commands.find((each) => each.kind === 'tell-project')).toMatchObject({
        deadline: at(91).toISOString(),
      });
    });

    it('notes an action other than the declared one, and an instance out longer than it may be', () => {
      const workflow = new MaintenanceWorkflow(
        plan({
          instanceLimits: {
            'web@h1': { leadSeconds: 0, maxInterruptionSeconds: 10, migrationType: 'MIGRATION' },
            'web@h3': { leadSeconds: 0, maxInterruptionSeconds: 0, migrationType: 'OWN_ACTION' },
          },
        }),
      );
      let step = workflow.advance(workflow.start(T0).progress, { kind: 'tick' }, at(30));
      step = workflow.advance(step.progress, { kind: 'slot-granted', host: 'h1' }, at(31));
      const reply = (instanceAction: 'MIGRATE' | 'LIVE_MIGRATE') =>
        workflow.advance(
          step.progress,
          { kind: 'reply', project: 'p1', state: 'PREPARE_MAINTENANCE', ack: true, instanceAction },
          at(32),
        );
      // MIGRATION is how Fenix's sample spells MIGRATE: no note.
      expect(reply('MIGRATE').notes).toBeUndefined();
      const differing = reply('LIVE_MIGRATE');
      expect(differing.notes).toEqual([
        expect.objectContaining({
          project: 'p1',
          host: 'h1',
          message: 'instance web@h1 answered LIVE_MIGRATE; its project declared MIGRATION',
        }),
      ]);
      step = workflow.advance(
        workflow.advance(
          step.progress,
          { kind: 'reply', project: 'p2', state: 'PREPARE_MAINTENANCE', ack: true },
          at(32),
        ).progress,
        { kind: 'reply', project: 'p1', state: 'PREPARE_MAINTENANCE', ack: true, instanceAction: 'MIGRATE' },
        at(32),
      );
      expect(step.progress.hosts.h1!.phase).toBe('evacuating');
      const empty = workflow.advance(step.progress, { kind: 'host-empty', host: 'h1' }, at(47));
      expect(empty.notes?.map((note) => note.message)).toEqual([
        'instance web@h1 was out of service 15 s, longer than its max_interruption_time of 10 s',
      ]);
    });

    it('lets a host holding more of a group than it allows go alone, rather than never', () => {
      const crowded = plan({
        ...group(1, 0, ['web@h3', 'db@h3']),
        instances: [...plan().instances, { id: 'db@h3', project: 'p1', host: 'h3' }],
      });
      const world = new World(new MaintenanceWorkflow(crowded));
      world.runUntil(600);
      expect(world.progress.state).toBe('MAINTENANCE_DONE');
    });
  });

  it('without a time set, starts as soon as every MAINTENANCE reply is in', () => {
    const workflow = new MaintenanceWorkflow(plan({ startWhenReady: true }));
    const { progress } = workflow.start(T0);
    const first = workflow.advance(
      progress,
      { kind: 'reply', project: 'p1', state: 'MAINTENANCE', ack: true },
      at(1),
    );
    expect(first.progress.state).toBe('MAINTENANCE');
    const second = workflow.advance(
      first.progress,
      { kind: 'reply', project: 'p2', state: 'MAINTENANCE', ack: true },
      at(2),
    );
    expect(second.progress.state).toBe('PREPARE_MAINTENANCE');
    expect(told(second.commands)).toEqual(['take-slot h1', 'take-slot h3']);
  });

  it('runs the whole session in order, one member of an HA group at a time, and ends done', () => {
    const world = new World(new MaintenanceWorkflow(plan()));
    world.runUntil(600);
    expect(world.progress.state).toBe('MAINTENANCE_DONE');
    expect(Object.values(world.progress.hosts).map((host) => host.phase)).toEqual([
      'done',
      'done',
      'done',
      'done',
    ]);
    expect(mostOfGroupDown(world.log)).toBe(1);
    const h1 = world.log.filter((line) => line.endsWith(' h1'));
    expect(h1).toEqual([
      'take-slot h1',
      'p1 PREPARE_MAINTENANCE h1',
      'cordon h1',
      'p1 INSTANCE_ACTION_DONE h1',
      'admin IN_MAINTENANCE h1',
      'start-host-action h1',
      'admin MAINTENANCE_COMPLETE h1',
      'uncordon h1',
      'release-slot h1',
    ]);
    // Once a host is maintained, the next hosts' projects may move onto it.
    expect(world.log).toContain('p2 PLANNED_MAINTENANCE h2');
    expect(world.log.slice(-2)).toEqual(['p1 MAINTENANCE_COMPLETE', 'p2 MAINTENANCE_COMPLETE']);
    expect(world.log.some((line) => line.startsWith('p3 '))).toBe(false);
  });

  describe('a host back in service', () => {
    /** h1 through its host action, h2 of its HA group waiting; maxParallelHosts 1. */
    function h1Returning() {
      const workflow = new MaintenanceWorkflow(plan({ maxParallelHosts: 1 }));
      let step = workflow.start(T0);
      step = workflow.advance(step.progress, { kind: 'tick' }, at(30));
      step = workflow.advance(step.progress, { kind: 'slot-granted', host: 'h1' }, at(31));
      step = workflow.advance(
        step.progress,
        { kind: 'reply', project: 'p1', state: 'PREPARE_MAINTENANCE', ack: true },
        at(32),
      );
      step = workflow.advance(step.progress, { kind: 'host-empty', host: 'h1' }, at(33));
      step = workflow.advance(step.progress, { kind: 'host-action-done', host: 'h1' }, at(34));
      return { workflow, step };
    }

    it('keeps its slot until it serves again, and only then lets the next member of its group start', () => {
      const { workflow, step } = h1Returning();
      expect(told(step.commands)).toEqual(['admin MAINTENANCE_COMPLETE h1', 'uncordon h1']);
      expect(step.progress.hosts.h1!.phase).toBe('returning');
      // Maintained already: the next hosts' projects are told PLANNED_MAINTENANCE.
      expect(step.progress.state).toBe('PLANNED_MAINTENANCE');
      const waiting = workflow.advance(step.progress, { kind: 'tick' }, at(90));
      expect(waiting.commands).toEqual([]);
      expect(waiting.progress.hosts.h2!.phase).toBe('waiting');
      const served = workflow.advance(waiting.progress, { kind: 'host-serving', host: 'h1' }, at(91));
      expect(told(served.commands)).toEqual(['release-slot h1', 'take-slot h2']);
      expect(served.progress.hosts.h1).toMatchObject({ phase: 'done', since: at(91).toISOString() });
    });

    it('gives its slot back when the driver stops waiting, with a note naming what it lacks', () => {
      const { workflow, step } = h1Returning();
      const late = workflow.advance(
        step.progress,
        { kind: 'serve-timeout', host: 'h1', seconds: 300, missing: 'web not running' },
        at(334),
      );
      expect(told(late.commands)).toEqual(['release-slot h1', 'take-slot h2']);
      expect(late.notes).toEqual([
        {
          project: null,
          host: 'h1',
          message:
            "host h1 did not serve again within 300 s (web not running): its HA group's slot was given back",
          detail: { waitedSeconds: 300, missing: 'web not running' },
        },
      ]);
      // Said once: the host is done.
      expect(
        workflow.advance(
          late.progress,
          { kind: 'serve-timeout', host: 'h1', seconds: 300, missing: 'x' },
          at(335),
        ),
      ).toMatchObject({ commands: [] });
    });

    it('is counted done, with its slot given back, when the session is aborted', () => {
      const { workflow, step } = h1Returning();
      const aborted = workflow.advance(step.progress, { kind: 'abort' }, at(40));
      expect(told(aborted.commands)).toEqual([
        'release-slot h1',
        'p1 MAINTENANCE_COMPLETE',
        'p2 MAINTENANCE_COMPLETE',
      ]);
      expect(aborted.progress.hosts.h1!.phase).toBe('done');
      expect(aborted.progress.hosts.h2).toMatchObject({ phase: 'skipped', reason: 'aborted by an admin' });
    });
  });

  it('offers OWN_ACTION only once a maintained host can take the instances', () => {
    const workflow = new MaintenanceWorkflow(plan({ maxParallelHosts: 1 }));
    const commands: WorkflowCommand[] = [];
    const world = new World(workflow);
    const original = workflow.advance.bind(workflow);
    workflow.advance = (progress, input, now) => {
      const step = original(progress, input, now);
      commands.push(...step.commands);
      return step;
    };
    world.runUntil(600);
    const asks = commands.filter((command) => command.kind === 'tell-project' && command.allowedActions);
    expect(
      asks.map((command) => (command.kind === 'tell-project' ? [command.state, command.allowedActions] : [])),
    ).toEqual([
      ['PREPARE_MAINTENANCE', ['MIGRATE', 'LIVE_MIGRATE']],
      ['PLANNED_MAINTENANCE', ['MIGRATE', 'LIVE_MIGRATE', 'OWN_ACTION']],
      ['PLANNED_MAINTENANCE', ['MIGRATE', 'LIVE_MIGRATE', 'OWN_ACTION']],
      ['PLANNED_MAINTENANCE', ['MIGRATE', 'LIVE_MIGRATE', 'OWN_ACTION']],
    ]);
  });

  it('asks the projects that must shrink to DOWN_SCALE after MAINTENANCE, and starts the hosts once they answered', () => {
    const workflow = new MaintenanceWorkflow(plan({ downScaleProjects: ['p2', 'p3'] }));
    let step = workflow.start(T0);
    for (const project of ['p1', 'p2'])
      step = workflow.advance(
        step.progress,
        { kind: 'reply', project, state: 'MAINTENANCE', ack: true },
        at(1),
      );
    step = workflow.advance(step.progress, { kind: 'tick' }, at(30));
    // p3 listens to nothing: its workloads are moved by policy, nobody is asked.
    expect(step.progress.state).toBe('DOWN_SCALE');
    expect(told(step.commands)).toEqual(['p2 DOWN_SCALE']);
    expect(step.commands[0]).toMatchObject({ deadline: at(90).toISOString(), instances: ['db@h2', 'db@h4'] });
    step = workflow.advance(
      step.progress,
      { kind: 'reply', project: 'p2', state: 'DOWN_SCALE', ack: true },
      at(40),
    );
    expect(step.progress.state).toBe('PREPARE_MAINTENANCE');
    expect(told(step.commands)).toEqual(['take-slot h1', 'take-slot h3']);
  });

  it('settles a DOWN_SCALE that is refused by the project’s own policy', () => {
    const world = new World(
      new MaintenanceWorkflow(plan({ downScaleProjects: ['p2'] }, { p2: 'skip-host' })),
      (project, state) => !(project === 'p2' && state === 'DOWN_SCALE'),
    );
    world.runUntil(600);
    expect(world.progress.hosts.h2).toMatchObject({
      phase: 'skipped',
      reason: expect.stringContaining('DOWN_SCALE (nack)'),
    });
    expect(world.progress.hosts.h4!.phase).toBe('skipped');
    expect(world.progress.state).toBe('MAINTENANCE_DONE');
  });

  it('never puts a host in maintenance before its listening projects acknowledged or timed out (invariant 7)', () => {
    const world = new World(new MaintenanceWorkflow(plan()), (project, state) =>
      state === 'PREPARE_MAINTENANCE' && project === 'p1' ? 'silent' : true,
    );
    world.runUntil(60);
    expect(world.progress.hosts.h1!.phase).toBe('preparing');
    expect(world.log).not.toContain('cordon h1');
    world.runUntil(600);
    // The reply did not come: under `proceed` the host goes on once its deadline passed.
    const timedOut = world.progress.asks.find((ask) => ask.project === 'p1' && ask.host === 'h1');
    expect(timedOut).toMatchObject({ answer: 'timeout', deadline: at(90).toISOString() });
    expect(world.progress.state).toBe('MAINTENANCE_DONE');
  });

  it('leaves out the host a project refuses under skip-host, and gives its slot back', () => {
    const world = new World(
      new MaintenanceWorkflow(plan({}, { p2: 'skip-host' })),
      (project, state, host) => !(project === 'p2' && state === 'PLANNED_MAINTENANCE' && host === 'h2'),
    );
    world.runUntil(600);
    expect(world.progress.hosts.h2).toMatchObject({
      phase: 'skipped',
      reason: expect.stringContaining('"p2"'),
    });
    expect(world.log).not.toContain('cordon h2');
    expect(world.log).toContain('release-slot h2');
    expect(world.progress.hosts.h4!.phase).toBe('done');
    expect(world.progress.state).toBe('MAINTENANCE_DONE');
  });

  it('leaves out every host of a project that refuses MAINTENANCE under skip-host', () => {
    const world = new World(
      new MaintenanceWorkflow(plan({}, { p2: 'skip-host' })),
      (project, state) => !(project === 'p2' && state === 'MAINTENANCE'),
    );
    world.runUntil(600);
    expect(
      Object.fromEntries(Object.entries(world.progress.hosts).map(([id, host]) => [id, host.phase])),
    ).toEqual({
      h1: 'done',
      h2: 'skipped',
      h3: 'done',
      h4: 'skipped',
    });
  });

  it('fails the session when a project under fail does not answer: hosts back in service, slots given back, projects told', () => {
    const world = new World(new MaintenanceWorkflow(plan({}, { p1: 'fail' })), (project, state, host) =>
      project === 'p1' && host === 'h3' ? 'silent' : true,
    );
    world.runUntil(600);
    expect(world.progress.state).toBe('MAINTENANCE_FAILED');
    expect(world.progress.failure).toContain(
      'project "p1" did not acknowledge PREPARE_MAINTENANCE for host "h3" (timeout)',
    );
    expect(world.log).toContain('release-slot h3');
    expect(world.log).not.toContain('cordon h3');
    expect(world.log.slice(-2)).toEqual(['p1 MAINTENANCE_COMPLETE', 'p2 MAINTENANCE_COMPLETE']);
    expect(
      Object.values(world.progress.hosts).every((host) => host.phase === 'done' || host.phase === 'skipped'),
    ).toBe(true);
    expect(world.workflow.nextDeadline(world.progress)).toBeUndefined();
  });

  it('puts a host without listening projects straight through: it is emptied by policy', () => {
    const quiet = plan({
      hosts: [{ id: 'h9', haGroup: null }],
      instances: [{ id: 'cache@h9', project: 'p3', host: 'h9' }],
    });
    const world = new World(new MaintenanceWorkflow(quiet));
    world.runUntil(600);
    expect(world.log).toEqual([
      'take-slot h9',
      'cordon h9',
      'admin IN_MAINTENANCE h9',
      'start-host-action h9',
      'admin MAINTENANCE_COMPLETE h9',
      'uncordon h9',
      'release-slot h9',
    ]);
    expect(world.progress.state).toBe('MAINTENANCE_DONE');
  });

  it('on abort, restores every host under way and tells the projects', () => {
    const workflow = new MaintenanceWorkflow(plan());
    let step = workflow.start(T0);
    step = workflow.advance(step.progress, { kind: 'tick' }, at(30));
    step = workflow.advance(step.progress, { kind: 'slot-granted', host: 'h3' }, at(31));
    step = workflow.advance(
      step.progress,
      { kind: 'reply', project: 'p1', state: 'PREPARE_MAINTENANCE', ack: true },
      at(32),
    );
    expect(told(step.commands)).toEqual(['cordon h3']);
    const aborted = workflow.advance(step.progress, { kind: 'abort' }, at(33));
    expect(aborted.progress.state).toBe('MAINTENANCE_FAILED');
    expect(told(aborted.commands)).toEqual([
      'release-slot h1',
      'uncordon h3',
      'release-slot h3',
      'p1 MAINTENANCE_COMPLETE',
      'p2 MAINTENANCE_COMPLETE',
    ]);
    // The host that was out of service is not shown as left out: it was interrupted.
    expect(aborted.progress.hosts.h3).toMatchObject({
      phase: 'interrupted',
      interruptedIn: 'evacuating',
      reason: 'aborted by an admin',
    });
    expect(aborted.progress.hosts.h1).toMatchObject({ phase: 'skipped', reason: 'aborted by an admin' });
    expect(workflow.advance(aborted.progress, { kind: 'host-empty', host: 'h3' }, at(34)).commands).toEqual(
      [],
    );
  });

  it('while paused, lets the hosts under way finish and asks no slot for another until resumed', () => {
    const workflow = new MaintenanceWorkflow(plan({ maxParallelHosts: 1 }));
    let step = workflow.start(T0);
    step = workflow.advance(step.progress, { kind: 'tick' }, at(30));
    step = workflow.advance(step.progress, { kind: 'slot-granted', host: 'h1' }, at(31));
    step = workflow.advance(step.progress, { kind: 'pause' }, at(32));
    expect(step.commands).toEqual([]);
    step = workflow.advance(
      step.progress,
      { kind: 'reply', project: 'p1', state: 'PREPARE_MAINTENANCE', ack: true },
      at(33),
    );
    step = workflow.advance(step.progress, { kind: 'host-empty', host: 'h1' }, at(34));
    step = workflow.advance(step.progress, { kind: 'host-action-done', host: 'h1' }, at(35));
    step = workflow.advance(step.progress, { kind: 'host-serving', host: 'h1' }, at(35));
    expect(told(step.commands)).toEqual(['release-slot h1']);
    expect(step.progress.hosts.h2!.phase).toBe('waiting');
    const resumed = workflow.advance(step.progress, { kind: 'resume' }, at(36));
    expect(told(resumed.commands)).toEqual(['take-slot h2']);
    expect(resumed.progress.paused).toBe(false);
  });

  it('says why it refuses a reply, and takes a repeated one as nothing new', () => {
    const workflow = new MaintenanceWorkflow(plan());
    const { progress } = workflow.start(T0);
    expect(workflow.refusesReply(progress, 'p1', 'MAINTENANCE')).toBeUndefined();
    expect(workflow.refusesReply(progress, 'p9', 'MAINTENANCE')).toContain(
      'has no instances in this session',
    );
    expect(workflow.refusesReply(progress, 'p1', 'PREPARE_MAINTENANCE')).toContain('has not been asked');
    const answered = workflow.advance(
      progress,
      { kind: 'reply', project: 'p1', state: 'MAINTENANCE', ack: false },
      at(1),
    );
    expect(workflow.refusesReply(answered.progress, 'p1', 'MAINTENANCE')).toContain(
      'that ask is closed (nack)',
    );
    const again = workflow.advance(
      answered.progress,
      { kind: 'reply', project: 'p1', state: 'MAINTENANCE', ack: true },
      at(2),
    );
    expect(again.progress).toEqual(answered.progress);
    const aborted = workflow.advance(answered.progress, { kind: 'abort' }, at(3));
    expect(workflow.refusesReply(aborted.progress, 'p2', 'MAINTENANCE')).toContain('the session has ended');
  });

  it('knows a reply that says again what the project answered, in either form, from one that differs', () => {
    const workflow = new MaintenanceWorkflow(plan({ maxParallelHosts: 1 }));
    let step = workflow.start(T0);
    step = workflow.advance(step.progress, { kind: 'tick' }, at(30));
    step = workflow.advance(step.progress, { kind: 'slot-granted', host: 'h1' }, at(31));
    const reply = (fields: object) =>
      ({ kind: 'reply', project: 'p1', state: 'PREPARE_MAINTENANCE', ack: true, ...fields }) as const;
    // Nothing answered yet: nothing to repeat.
    expect(workflow.repeatsAnswer(step.progress, reply({ instanceAction: 'MIGRATE' }))).toBe(false);
    const answered = workflow.advance(step.progress, reply({ instanceAction: 'MIGRATE' }), at(32));
    expect(workflow.repeatsAnswer(answered.progress, reply({ instanceAction: 'MIGRATE' }))).toBe(true);
    // Fenix's one action for all and the same action per instance say the same.
    expect(
      workflow.repeatsAnswer(answered.progress, reply({ instanceActions: { 'web@h1': 'MIGRATE' } })),
    ).toBe(true);
    expect(workflow.repeatsAnswer(answered.progress, reply({ instanceAction: 'LIVE_MIGRATE' }))).toBe(false);
    expect(workflow.repeatsAnswer(answered.progress, reply({ ack: false, instanceAction: 'MIGRATE' }))).toBe(
      false,
    );
    expect(workflow.repeatsAnswer(answered.progress, reply({}))).toBe(false);
  });

  it('never changes the progress it was given', () => {
    const workflow = new MaintenanceWorkflow(plan());
    const { progress } = workflow.start(T0);
    const before = structuredClone(progress);
    workflow.advance(progress, { kind: 'tick' }, at(30));
    expect(progress).toEqual(before);
  });
});
