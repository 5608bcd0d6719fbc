/**
 * Injects faults into the chaos platform one after another, at moments and on targets drawn
 * from a seeded random sequence (the same seed, the same faults in the same order):
 * - `service-kill`: SIGKILL of one replica of one service, started again a moment later;
 * - `nats-kill`: SIGKILL of one NATS member (half the time the leader of a stream), restarted;
 * - `postgres-restart`: a fast shutdown and a start, in the middle of the work's writes;
 * - `agents-link` and `service-nats-link`: a delay, resets, or a partition that heals, between
 *   the agents and the exchange, or between one service's replicas and NATS.
 * The first faults take every kind once, so that even a short run has each of them.
 */
import { STREAMS } from '@careen/contracts';
import { type TcpProxy } from '@careen/testing';
import { setTimeout as pause } from 'node:timers/promises';
import { type ChaosPlatform, type HubServiceName } from './chaos-platform';
import { type WorkKind, WORK_KINDS } from './progress-log';

export type FaultKind =
  'service-kill' | 'nats-kill' | 'postgres-restart' | 'agents-link' | 'service-nats-link';

export const FAULT_KINDS: readonly FaultKind[] = [
  'service-kill',
  'nats-kill',
  'postgres-restart',
  'agents-link',
  'service-nats-link',
];

export interface InjectedFault {
  kind: FaultKind;
  /** What was hit, and how. */
  detail: string;
  /** The work that needs what was hit. */
  affects: readonly WorkKind[];
  at: number;
}

/** The work that stops when a service does. */
const WORK_OF: Record<HubServiceName, readonly WorkKind[]> = {
  exchange: WORK_KINDS,
  agbot: WORK_KINDS,
  'maintenance-session': ['maintenance'],
  'deployment-orchestrator': ['strategy-rollout'],
  // The VNF manager hears of maintenance through the notifier's webhooks.
  notifier: ['maintenance'],
};

export class FaultScheduler {
  readonly injected: InjectedFault[] = [];
  /** Faults that could not be mended: a replica that would not start again, say. */
  readonly incidents: string[] = [];

  constructor(
    private readonly platform: ChaosPlatform,
    private readonly random: () => number,
  ) {}

  /** Injects faults until `untilMs` (a Date.now() moment), each mended before the next. */
  async run(untilMs: number): Promise<void> {
    const firstRound = this.shuffled([...FAULT_KINDS]);
    while (Date.now() < untilMs) {
      await pause(this.between(1_000, 4_000));
      const kind = firstRound.shift() ?? this.pick(FAULT_KINDS);
      try {
        await this.inject(kind);
      } catch (error) {
        this.incidents.push(`${kind}: ${(error as Error).message}`);
      }
    }
  }

  private async inject(kind: FaultKind): Promise<void> {
    switch (kind) {
      case 'service-kill': {
        const service = this.pick([...this.platform.services.values()]);
        const index = Math.floor(this.random() * service.replicas.length);
        this.record(kind, `${service.name} replica ${index + 1}`, WORK_OF[service.name]);
        const replica = service.replicas[index]!;
        await replica.kill();
        await pause(this.between(500, 3_000));
        await replica.start();
        return;
      }
      case 'nats-kill': {
        const stream = this.pick(Object.values(STREAMS).map((each) => each.name));
        const leader = this.random() < 0.5 ? await this.platform.streamLeader(stream) : undefined;
        const member =
          this.platform.cluster.members.find((each) => each.name === leader) ??
          this.pick(this.platform.cluster.members);
        this.record(kind, `${member.name}${leader ? ` (leader of ${stream})` : ''}`, WORK_KINDS);
        const exited = new Promise((done) => member.process.once('exit', done));
        member.process.kill('SIGKILL');
        await exited;
        await pause(this.between(500, 3_000));
        await this.platform.cluster.restart(member.name);
        return;
      }
      case 'postgres-restart': {
        this.record(kind, 'fast shutdown, then start', WORK_KINDS);
        await this.platform.postgres.stop();
        await this.platform.postgres.start();
        return;
      }
      case 'agents-link':
        return this.disturb(
          kind,
          'agents ↔ exchange',
          [this.platform.agentLink],
          ['agent-rollout', 'strategy-rollout', 'service-upgrade'],
        );
      case 'service-nats-link': {
        const service = this.pick([...this.platform.services.values()]);
        return this.disturb(kind, `${service.name} ↔ NATS`, service.natsProxies, WORK_OF[service.name]);
      }
    }
  }

  /** A delay, resets, or a partition on `links`, mended after a few seconds. */
  private async disturb(
    kind: FaultKind,
    where: string,
    links: readonly TcpProxy[],
    affects: readonly WorkKind[],
  ): Promise<void> {
    const how = this.pick(['delay', 'reset', 'partition'] as const);
    const holdMs = this.between(1_000, 5_000);
    if (how === 'delay') {
      const delayMs = Math.round(this.between(50, 400));
      this.record(kind, `${where}: ${delayMs} ms delay for ${(holdMs / 1000).toFixed(1)} s`, affects);
      for (const link of links) link.delay(delayMs);
      await pause(holdMs);
      for (const link of links) link.delay(0);
    } else if (how === 'reset') {
      this.record(kind, `${where}: every connection reset`, affects);
      for (const link of links) link.reset();
    } else {
      this.record(kind, `${where}: partitioned for ${(holdMs / 1000).toFixed(1)} s`, affects);
      for (const link of links) link.partition();
      await pause(holdMs);
      for (const link of links) link.heal();
    }
  }

  private record(kind: FaultKind, detail: string, affects: readonly WorkKind[]): InjectedFault {
    const fault: InjectedFault = { kind, detail, affects, at: Date.now() };
    this.injected.push(fault);
    return fault;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private between(low: number, high: number): number {
    return low + this.random() * (high - low);
  }

  private shuffled<T>(items: T[]): T[] {
    for (let index = items.length - 1; index > 0; index--) {
      const other = Math.floor(this.random() * (index + 1));
      [items[index], items[other]] = [items[other]!, items[index]!];
    }
    return items;
  }
}
