/**
 * An install strategy kept in memory, for simulated agents: it can be told which versions
 * fail their health check, so rollbacks can be exercised at fleet scale, and how long an
 * install takes, so an upgrade holds its HA group for a while as a real one does.
 */
import { type Clock } from '../core/clock';
import { type InstallStrategy } from './install-strategy';

export class SimulatedInstallStrategy implements InstallStrategy {
  readonly name = 'simulated';
  private active: string | null;
  private readonly installed = new Set<string>();

  constructor(
    initialVersion: string | null,
    /** Answers whether installing this version should fail its health check. */
    public failing: (version: string) => boolean = () => false,
    private readonly installTime?: { ms: number; clock: Clock },
  ) {
    this.active = initialVersion;
    if (initialVersion) this.installed.add(initialVersion);
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
    return this.failing(version)
      ? Promise.reject(new Error(`simulated health check of ${version} failed`))
      : Promise.resolve();
  }

  remove(version: string): Promise<void> {
    if (version !== this.active) this.installed.delete(version);
    return Promise.resolve();
  }

  versions(): string[] {
    return [...this.installed].sort();
  }
}
