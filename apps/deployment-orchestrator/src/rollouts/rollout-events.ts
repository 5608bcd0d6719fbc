/** Writes what happened to a rollout and its groups to the outbox, in the transaction that changed it. */
import { OrchestratorGroupEvent, OrchestratorRolloutEvent } from '@careen/contracts';
import { type OutboxWriter } from '@careen/persistence';
import { type EntityManager } from 'typeorm';
import { RolloutEngine, type RolloutEvent } from './rollout-engine';
import { type RolloutRecord } from './rollout-record';

export class RolloutEvents {
  constructor(private readonly outbox: OutboxWriter) {}

  async write(manager: EntityManager, record: RolloutRecord, events: readonly RolloutEvent[]): Promise<void> {
    // Every pass of the driver comes here; most have nothing to say.
    if (events.length === 0) return;
    const engine = new RolloutEngine(record.document, record.plan.groups);
    for (const event of events) {
      if (event.kind === 'rollout') {
        await this.outbox.append(manager, OrchestratorRolloutEvent, [event.event], {
          rollout_id: record.id,
          event: event.event,
          org: record.org,
          strategy: record.strategy,
          strategy_version: record.strategyVersion,
          version: record.targetVersion,
          ...(event.reason && { reason: event.reason }),
        });
        continue;
      }
      const counts = engine.counts(
        record.progress,
        event.group,
        event.event === 'prepared' ? 'prepare' : 'deploy',
      );
      await this.outbox.append(manager, OrchestratorGroupEvent, [event.event], {
        rollout_id: record.id,
        event: event.event,
        org: record.org,
        strategy: record.strategy,
        group: event.group,
        nodes: counts.total,
        successful: counts.successful,
        failed: counts.failed,
        ...(event.reason && { reason: event.reason }),
      });
    }
  }
}
