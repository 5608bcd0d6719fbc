/**
 * Carries out one agent upgrade, step by step, saving its phase before each step so that a
 * restart (planned, after install, or a crash) resumes where it stopped or rolls back:
 *
 *   downloading → downloaded → [ha-waiting] → initiated → (restart) → successful
 *                                     any failure after install → failed → rolling-back
 *                                                                → (restart) → rolled-back | rollback-failed
 *
 * A bad download ends in download-failed, as does a package the node could not read to check it
 * (both are tried again later); a package that fails its checks ends in precheck-failed and is
 * never installed. A failed version is remembered and not tried again. Each new step
 * (the download, the install) begins with its status, which the exchange refuses once the
 * policy is disabled or paused, as the agbot refuses its grant: the enactment then stops
 * before the step and is planned again later. A failed rollback keeps the HA group's slot.
 */
import { type ManagementStatusValue } from '@careen/contracts';
import { type JsonLogger } from '@careen/telemetry';
import { type HaPermit, type HeldPermit } from '../agbot/ha-permit';
import { type Clock } from '../core/clock';
import { type ManagementStatusReport } from '../exchange/exchange.types';
import { type UpgradeInProgress } from '../state/agent-state';
import { type AgentMemory } from '../state/agent-memory';
import { PolicyStopped } from '../enactment/policy-stopped';
import { type InstallStrategy, type Restarter } from './install-strategy';
import { type PackageDownload } from './package-download';
import { type PackageVerifier, VerificationError } from './package-verifier';

export interface UpgradeReporter {
  /** Writes the policy's status for this node; keeps trying until the exchange takes it. */
  management(nmp: string, report: ManagementStatusReport): Promise<void>;
  /** Writes the node's status (agentVersion and workloads); keeps trying likewise. */
  node(): Promise<void>;
}

export interface UpgradeDeps {
  download: Pick<PackageDownload, 'fetch' | 'discard'>;
  verifier: PackageVerifier;
  strategy: InstallStrategy;
  restarter: Restarter;
  memory: AgentMemory;
  reporter: UpgradeReporter;
  clock: Clock;
  logger: JsonLogger;
  /** Present when an agbot is configured. */
  permit?: HaPermit;
  /** How long a stopped enactment waits before it is planned again, in ms. */
  stoppedRetryMs?: number;
}

export class UpgradeRunner {
  private held: HeldPermit | undefined;

  constructor(private readonly deps: UpgradeDeps) {}

  /** Starts an upgrade of the running version to `version` for the policy. */
  async begin(
    enactment: Pick<UpgradeInProgress, 'nmp' | 'lastUpdated' | 'version' | 'action' | 'location'>,
    running: string | null,
    haGroup: string | null,
    signal: AbortSignal,
  ): Promise<void> {
    await this.deps.memory.setUpgrade({
      ...enactment,
      previous: running,
      phase: 'downloading',
      startTime: this.deps.clock.now().toISOString(),
    });
    await this.proceed(haGroup, signal);
  }

  /**
   * Continues the saved upgrade from its phase; `running` is the version this process runs.
   * Resolves when the upgrade is over or waits for a restart.
   */
  async proceed(haGroup: string | null, signal: AbortSignal): Promise<void> {
    const upgrade = this.deps.memory.upgrade;
    if (!upgrade) return;
    switch (upgrade.phase) {
      case 'downloading':
      case 'downloaded':
      case 'installing':
        return this.downloadAndInstall(upgrade, haGroup, signal);
      case 'restarting':
        return this.confirm(upgrade, haGroup);
      case 'rolling-back':
        return this.rollBack(upgrade, haGroup);
      case 'rolled-back-restarting':
        return this.confirmRollback(upgrade, haGroup);
    }
  }

  private async downloadAndInstall(
    upgrade: UpgradeInProgress,
    haGroup: string | null,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await this.fetchAndInstall(upgrade, haGroup, signal);
    } catch (error) {
      if (!(error instanceof PolicyStopped)) throw error;
      await this.stopped(upgrade, haGroup, error);
    }
  }

  private async fetchAndInstall(
    upgrade: UpgradeInProgress,
    haGroup: string | null,
    signal: AbortSignal,
  ): Promise<void> {
    const { download, verifier, logger } = this.deps;
    if (upgrade.phase === 'downloading') await this.status(upgrade, 'downloading');
    let file: string;
    let pkg;
    try {
      logger.info({ version: upgrade.version }, 'downloading the package');
      ({ pkg, file } = await download.fetch(
        upgrade.version,
        {
          resumed: (offset) => logger.info({ version: upgrade.version, offset }, 'download resumed'),
          retrying: (attempt, error) =>
            logger.warn(
              { version: upgrade.version, attempt, error: error.message },
              'download interrupted; retrying',
            ),
        },
        signal,
        upgrade.location,
      ));
    } catch (error) {
      if (signal.aborted) return;
      return this.end(upgrade, 'download-failed', haGroup, (error as Error).message);
    }
    try {
      await verifier.verify(file, pkg);
    } catch (error) {
      // The node could not read its own copy: the package is not at fault, and is tried again.
      if (!(error instanceof VerificationError)) {
        const why = `the downloaded package could not be read: ${(error as Error).message}`;
        logger.warn({ version: upgrade.version, error: why }, 'package not checked; will try again later');
        return this.end(upgrade, 'download-failed', haGroup, why);
      }
      await download.discard(upgrade.version);
      this.deps.memory.markFailed(upgrade.version);
      logger.warn({ version: upgrade.version, error: (error as Error).message }, 'package refused');
      return this.end(upgrade, 'precheck-failed', haGroup, (error as Error).message);
    }
    if (upgrade.phase === 'downloading') {
      await this.save(upgrade, 'downloaded');
      await this.status(upgrade, 'downloaded');
    }
    if (upgrade.action === 'download') return this.end(upgrade, 'downloaded', haGroup);

    // Every node asks, in an HA group or not: the agbot's gate holds windows, freezes and budgets
    // for all of them, and answers a node outside any group at once when nothing holds it.
    if (this.deps.permit) {
      try {
        this.held = await this.deps.permit.acquire(
          upgrade.nmp,
          {
            waiting: (_holder, why) => this.status(upgrade, 'ha-waiting', why),
            granted: () => logger.info({ nmp: upgrade.nmp, haGroup }, 'upgrade granted in the HA group'),
          },
          signal,
        );
      } catch (error) {
        if (error instanceof PolicyStopped) throw error;
        return; // stopped while waiting: the saved phase resumes on the next start
      }
    }
    if (upgrade.phase !== 'installing') {
      await this.status(upgrade, 'initiated');
      await this.save(upgrade, 'installing');
    }
    this.deps.memory.upgradeTimes.upgradeStart = this.deps.clock.now().toISOString();
    this.deps.memory.upgradeTimes.upgradeEnd = null;
    await this.deps.reporter.node();
    try {
      await this.deps.strategy.install(upgrade.version, file);
      await this.deps.strategy.activate(upgrade.version);
    } catch (error) {
      return this.fail(upgrade, haGroup, `install failed: ${(error as Error).message}`);
    }
    await this.save(upgrade, 'restarting');
    logger.info({ version: upgrade.version }, 'restarting on the new version');
    await this.deps.restarter.restart();
  }

  /**
   * The policy was stopped before the next step: give the group back, forget the upgrade (the
   * download stays for later) and plan the enactment again after a pause — by then the agent
   * has read the stop from the feed, or, if the policy runs again, it goes on.
   */
  private async stopped(
    upgrade: UpgradeInProgress,
    haGroup: string | null,
    why: PolicyStopped,
  ): Promise<void> {
    this.deps.logger.info({ nmp: upgrade.nmp, version: upgrade.version }, why.message);
    await this.releasePermit();
    const retryAt = new Date(this.deps.clock.now().getTime() + (this.deps.stoppedRetryMs ?? 15_000));
    this.deps.memory.postpone(upgrade.nmp, retryAt);
    await this.deps.memory.setUpgrade(undefined);
  }

  /** After the restart: the new version must be the one running, and healthy. */
  private async confirm(upgrade: UpgradeInProgress, haGroup: string | null): Promise<void> {
    const active = await this.deps.strategy.activeVersion();
    try {
      if (active !== upgrade.version)
        throw new Error(`${active ?? 'the first installed agent'} is running, not ${upgrade.version}`);
      await this.deps.strategy.healthCheck(upgrade.version);
    } catch (error) {
      return this.fail(upgrade, haGroup, (error as Error).message);
    }
    this.deps.memory.upgradeTimes.upgradeEnd = this.deps.clock.now().toISOString();
    this.deps.logger.info({ version: upgrade.version, previous: upgrade.previous }, 'upgrade successful');
    await this.end(upgrade, 'successful', haGroup);
  }

  private async fail(upgrade: UpgradeInProgress, haGroup: string | null, error: string): Promise<void> {
    this.deps.logger.warn({ version: upgrade.version, error }, 'upgrade failed; rolling back');
    upgrade.error = error;
    this.deps.memory.markFailed(upgrade.version);
    await this.status(upgrade, 'failed', error);
    await this.save(upgrade, 'rolling-back');
    await this.rollBack(upgrade, haGroup);
  }

  private async rollBack(upgrade: UpgradeInProgress, haGroup: string | null): Promise<void> {
    await this.status(upgrade, 'rolling-back', upgrade.error);
    const activeBefore = await this.deps.strategy.activeVersion().catch(() => undefined);
    try {
      await this.deps.strategy.activate(upgrade.previous);
      await this.deps.strategy.remove(upgrade.version);
    } catch (error) {
      return this.end(
        upgrade,
        'rollback-failed',
        haGroup,
        `${upgrade.error}; rollback: ${(error as Error).message}`,
      );
    }
    await this.save(upgrade, 'rolled-back-restarting');
    // Nothing to restart when the new version never became the active one.
    if (activeBefore === upgrade.previous) return this.confirmRollback(upgrade, haGroup);
    await this.deps.restarter.restart();
  }

  private async confirmRollback(upgrade: UpgradeInProgress, haGroup: string | null): Promise<void> {
    const active = await this.deps.strategy.activeVersion();
    if (active !== upgrade.previous) {
      return this.end(
        upgrade,
        'rollback-failed',
        haGroup,
        `${upgrade.error}; ${active} is active after the rollback`,
      );
    }
    try {
      if (active !== null) await this.deps.strategy.healthCheck(active);
    } catch (error) {
      return this.end(upgrade, 'rollback-failed', haGroup, `${upgrade.error}; ${(error as Error).message}`);
    }
    this.deps.logger.info({ version: upgrade.previous, failed: upgrade.version }, 'rolled back');
    await this.end(upgrade, 'rolled-back', haGroup, upgrade.error);
  }

  /**
   * Writes the final status, gives the HA group back (unless the node is left unhealthy: then
   * the agbot keeps the group halted for it) and forgets the upgrade.
   */
  private async end(
    upgrade: UpgradeInProgress,
    status: ManagementStatusValue,
    haGroup: string | null,
    error?: string,
  ): Promise<void> {
    await this.status(upgrade, status, error, true);
    await this.deps.memory.setUpgrade(undefined);
    await this.deps.reporter.node();
    if (status === 'rollback-failed') await this.keepPermit();
    else await this.releasePermit();
  }

  private async releasePermit(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held) await held.release();
    else await this.deps.permit?.giveBack();
  }

  private async keepPermit(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    await held?.keep();
  }

  private async save(upgrade: UpgradeInProgress, phase: UpgradeInProgress['phase']): Promise<void> {
    upgrade.phase = phase;
    await this.deps.memory.setUpgrade(upgrade);
  }

  private async status(
    upgrade: UpgradeInProgress,
    status: ManagementStatusValue,
    error?: string,
    final = false,
  ): Promise<void> {
    this.deps.memory.recordStatus(upgrade.nmp, status);
    await this.deps.memory.persist();
    await this.deps.reporter.management(upgrade.nmp, {
      status,
      version: upgrade.version,
      ...(upgrade.previous ? { fromVersion: upgrade.previous } : {}),
      startTime: upgrade.startTime,
      ...(final ? { endTime: this.deps.clock.now().toISOString() } : {}),
      ...(error ? { error: error.slice(0, 4000) } : {}),
    });
  }
}
