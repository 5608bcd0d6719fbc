/**
 * Fails the steps whose soak an alert broke: every second, for each org whose alert gates soak,
 * the steps that ended lately are held against each Prometheus's last answer (the alert watch's,
 * asked on its own schedule), and a step an alert of a covering gate fired for halts its node as
 * a failed upgrade does: its group waits until an admin resets it (`careen hagroup reset`, or
 * `careen nmp reset` for a node outside any group). Every replica looks; a halt already made is
 * not made again. A step of a node outside any group with no policy (a maintenance, a reboot) has
 * no halt an admin could end: its failure is logged, not held.
 */
import { SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UpgradeSemaphore } from '../upgrades/upgrade-semaphore';
import { AlertWatch } from './alert-watch';
import { SoakReader } from './soaks';

const TICK_MS = 1_000;

/** Marks the halt just made as a soak's: the orchestrator fails the step rather than wait for it. */
const MARK_SOAK_FAILED = `UPDATE agbot.upgrade_grants SET soak_failed = true
  WHERE org = $1 AND node = $2 AND holder_kind = 'agent-upgrade' AND halted_at IS NOT NULL`;

@Injectable()
export class SoakWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly reader = new SoakReader();
  /** The unhalted failures already logged, so that each is logged once. */
  private readonly logged = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly semaphore: UpgradeSemaphore,
    private readonly alerts: AlertWatch,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
  ) {}

  onApplicationBootstrap(): void {
    const tick = async () => {
      try {
        await this.failBrokenSoaks();
      } catch (error) {
        this.logger.warn({ err: String(error) }, 'checking the soaks failed; retrying');
      }
      if (!this.stopped) this.timer = setTimeout(() => void tick(), TICK_MS);
    };
    void tick();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Halts the node of every soaking step an alert fired for; answers the halts made. */
  async failBrokenSoaks(): Promise<{ org: string; node: string; error: string }[]> {
    const failed: { org: string; node: string; error: string }[] = [];
    const manager = this.dataSource.manager;
    for (const org of await this.reader.soakingOrgs(manager)) {
      const { now, controls, steps } = await this.reader.read(manager, org);
      for (const step of steps) {
        const error = controls.soakFailure(step, (url) => this.alerts.answerOf(url), now);
        if (!error) continue;
        const node = step.node.id;
        if (step.node.haGroup === null && step.managementPolicy === null) {
          const key = `${org}/${node}@${step.endedAt.toISOString()}`;
          if (this.logged.size > 10_000) this.logged.clear();
          if (!this.logged.has(key))
            this.logger.warn(
              { org, node, error },
              'a step failed its soak; a node outside any group is not halted',
            );
          this.logged.add(key);
          continue;
        }
        await this.dataSource.transaction(async (tx) => {
          await this.semaphore.haltIn(tx, {
            org,
            node,
            managementPolicy: step.managementPolicy,
            error,
            failedAt: now,
          });
          await tx.query(MARK_SOAK_FAILED, [org, node]);
        });
        this.logger.warn({ org, node, error }, 'a step failed its soak: its node is halted');
        failed.push({ org, node, error });
      }
    }
    return failed;
  }
}
