/**
 * An install strategy kept in memory, for simulated agents: it can be told which new versions
 * fail their health check, so rollbacks can be exercised at fleet scale, whether a rollback
 * fails too (the previous version no longer comes up), and how long an install takes, so an
 * upgrade holds its HA group for a while as a real one does. A version that came up healthy
 * once (the initial one, or any that passed) stays healthy: a failed upgrade rolls back cleanly
 * unless the rollback is told to fail.
 */
import { type Clock } from '../core/clock';
import { type InstallStrategy } from './install-strategy';

export class SimulatedInstallStrategy implements InstallStrategy {
  readonly name = 'simulated';
  private active: string | null;
  private readonly installed = new Set<string>();
  private readonly healthy = new Set<string>();

  constructor(
    initialVersion: string | null,
    /** Answers whether a new version fails its health check. */
    public failing: (version: string) => boolean = () => false,
    private readonly installTime?: { ms: number; clock: Clock },
    /** Answers whether going back to this (healthy) version fails: the rollback does not come up. */
    public rollbackFailing: (version: string) => boolean = () => false,
  ) {
    this.active = initialVersion;
    if (initialVersion) {
      this.installed.add(initialVersion);
      this.healthy.add(initialVersion);
    }
  }

  activeVersion(): Promise<string | null> {
    return Promise.resolve(this.active);
  }

  async install(version: string): Promise<void> {
    if (this.installTime) await this.installTime.clock.sleep(this.installTime.ms);
    this.installed.add(version);
  }

  activate(version: string | null): Promise<void> {
    if (version !== null && !this.installed.has(version))
      return Promise.reject(new Error(`${version} is not installed`));
    this.active = version;
    return Promise.resolve();
  }

  healthCheck(version: string): Promise<void> {
    const failed = this.healthy.has(version) ? this.rollbackFailing(version) : this.failing(version);
    if (failed) return Promise.reject(new Error(`simulated health check of ${version} failed`));
    this.healthy.add(version);
    return Promise.resolve();
  }

  remove(version: string): Promise<void> {
    if (version !== this.active) this.installed.delete(version);
    return Promise.resolve();
  }

  versions(): string[] {
    return [...this.installed].sort();
  }
}
