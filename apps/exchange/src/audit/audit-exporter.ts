/**
 * Publishes each org's audit records, as stored, on `careen.audit.records.<org>` for a SIEM:
 * from the last one exported, in order, each with the message id `audit-<org>-<seq>`, so that
 * two replicas or a crash between publishing and noting it publish a record again only for
 * JetStream to drop it. Run after each append and every few seconds, one run at a time.
 */
import { type EventPublisher } from '@careen/bus';
import { AuditRecorded } from '@careen/contracts';
import { type AuditLogStore } from './audit-log.store';

/** Records published per round. */
const ROUND = 1000;

export class AuditExporter {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly store: AuditLogStore,
    private readonly publisher: EventPublisher,
  ) {}

  /** The run under way, if any: a service stopping waits for it. */
  get done(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Exports what is pending; a call while a run is under way makes it go round once more. */
  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.rounds().finally(() => (this.running = undefined));
    return this.running;
  }

  private async rounds(): Promise<void> {
    do {
      this.again = false;
      const records = await this.store.unexported(ROUND);
      await Promise.all(
        records.map((record) =>
          this.publisher.publish(AuditRecorded, [record.org], record, {
            id: `audit-${record.org}-${record.seq}`,
            time: new Date(record.at),
          }),
        ),
      );
      const last = new Map(records.map((record) => [record.org, record.seq]));
      for (const [org, seq] of last) await this.store.exported(org, seq);
      if (records.length === ROUND) this.again = true;
    } while (this.again);
  }
}
