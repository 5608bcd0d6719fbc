/**
 * What a connection's durable consumers did, for the service's metrics: per consumer, the
 * messages delivered again after a failed attempt, and the ones dead-lettered, by why. Plain
 * counts that the metrics read when scraped; the bus itself knows nothing of Prometheus.
 */
export type DeadLetterReason = 'invalid-message' | 'handler-failed';

export interface ConsumerStats {
  readonly name: string;
  readonly stream: string;
  redeliveries: number;
  readonly deadLetters: Record<DeadLetterReason, number>;
}

export class BusStats {
  private readonly byConsumer = new Map<string, ConsumerStats>();

  /** The counts of consumer `name` on `stream`, started at zero the first time. */
  consumer(name: string, stream: string): ConsumerStats {
    let stats = this.byConsumer.get(name);
    if (!stats) {
      stats = { name, stream, redeliveries: 0, deadLetters: { 'invalid-message': 0, 'handler-failed': 0 } };
      this.byConsumer.set(name, stats);
    }
    return stats;
  }

  consumers(): readonly ConsumerStats[] {
    return [...this.byConsumer.values()];
  }
}
