/**
 * The agent's state in memory, written through to its store after each change; writes are
 * queued so two steps never race on the same file.
 */
import { type ManagementStatusValue } from '@careen/contracts';
import { type EnactmentRecord } from '../enactment/enactment-record';
import { type AgentState, type UpgradeInProgress } from './agent-state';
import { type StateStore, stateText } from './state-store';

export class AgentMemory {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly state: AgentState,
    private readonly store: StateStore,
  ) {}

  persist(): Promise<void> {
    // The text is the snapshot: one serialization, which the store keeps or writes as it is.
    const snapshot = stateText(this.state);
    this.writing = this.writing.then(() => this.store.save(snapshot));
    return this.writing;
  }

  get upgrade(): UpgradeInProgress | undefined {
    return this.state.upgrade;
  }

  setUpgrade(upgrade: UpgradeInProgress | undefined): Promise<void> {
    if (upgrade) this.state.upgrade = upgrade;
    else delete this.state.upgrade;
    return this.persist();
  }

  get failedVersions(): string[] {
    return this.state.failedVersions ?? [];
  }

  markFailed(version: string): void {
    this.state.failedVersions = [...new Set([...this.failedVersions, version])];
  }

  forgetFailure(version: string): void {
    this.state.failedVersions = this.failedVersions.filter((failed) => failed !== version);
  }

  get records(): Record<string, EnactmentRecord> {
    return (this.state.enactments ??= {});
  }

  recordStatus(nmp: string, status: ManagementStatusValue): void {
    const record = this.records[nmp];
    if (record) record.status = status;
  }

  /** Plans the policy's enactment afresh, not before `until`. */
  postpone(nmp: string, until: Date): void {
    const record = this.records[nmp];
    if (record) Object.assign(record, { status: null, moment: until.toISOString() });
  }

  get upgradeTimes(): { upgradeStart: string | null; upgradeEnd: string | null } {
    return (this.state.agentVersion ??= { upgradeStart: null, upgradeEnd: null });
  }
}
