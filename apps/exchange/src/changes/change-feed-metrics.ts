/** What the exchange reports about its change feed: the long-polls waiting on this replica. */
import { MetricsRegistry } from '@careen/service';
import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { ChangeTail } from './change-tail';

@Injectable()
export class ChangeFeedMetrics {
  constructor(metrics: MetricsRegistry, tail: ChangeTail) {
    new Gauge({
      name: 'careen_exchange_waiting_polls',
      help: 'Long-polls of the change feed waiting for a change on this replica',
      registers: [metrics.registry],
      collect() {
        this.set(tail.waiting);
      },
    });
  }
}
