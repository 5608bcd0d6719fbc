/**
 * Tells the other services which nodes were seen (their polls stored as heartbeats), one plain
 * NATS message per org and at most NODES_SEEN_MAX_NODES nodes. Fire and forget: a message the
 * bus drops is made good by the nodes' next polls.
 */
import { cloudEventHeaders, type BusConnection } from '@careen/bus';
import { NODES_SEEN_MAX_NODES, NodesSeen, type NodesSeenPayload } from '@careen/contracts';
import { BUS, SERVICE_LOGGER, SERVICE_NAME } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

@Injectable()
export class NodesSeenPublisher {
  private readonly encoder = new TextEncoder();
  /** CloudEvents `source`, as the service's other events give it. */
  private readonly source: string;

  constructor(
    @Inject(BUS) private readonly bus: BusConnection,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    @Inject(SERVICE_NAME) service: string,
  ) {
    this.source = `careen/${service}`;
  }

  /** Publishes the nodes seen at or after `seenAt`, grouped by org. */
  publish(seenAt: string, nodes: readonly { org: string; node: string }[]): void {
    const byOrg = new Map<string, string[]>();
    for (const { org, node } of nodes) {
      const ids = byOrg.get(org);
      if (ids) ids.push(node);
      else byOrg.set(org, [node]);
    }
    for (const [org, ids] of byOrg)
      for (let start = 0; start < ids.length; start += NODES_SEEN_MAX_NODES)
        this.send({ org, seenAt, nodes: ids.slice(start, start + NODES_SEEN_MAX_NODES) });
  }

  private send(payload: NodesSeenPayload): void {
    try {
      this.bus.nc.publish(NodesSeen.subject(payload.org), this.encoder.encode(JSON.stringify(payload)), {
        headers: cloudEventHeaders({
          id: randomUUID(),
          type: NodesSeen.type,
          source: this.source,
          time: new Date().toISOString(),
        }),
      });
    } catch (error) {
      // A closed or draining connection: the nodes' next polls say it again.
      this.logger.warn({ err: String(error), org: payload.org }, 'nodes seen not published');
    }
  }
}
