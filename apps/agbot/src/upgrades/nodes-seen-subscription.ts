/**
 * The exchange says which nodes polled (NodesSeen): an agent reports its status only when it
 * changes, so a poll is what tells the agbot that a quiet node is still there. One replica takes
 * each message (a queue group; the effect is in the shared schema): the nodes' heartbeats in
 * the mirror move forward, which keeps them online for rollouts and placement, and each poll
 * renews the lease of an agent-upgrade slot the node holds, as a status report does. Plain NATS,
 * nothing durable: a message missed is made good by the nodes' next polls. Messages are taken
 * one at a time; one that is not a valid NodesSeen is logged and dropped.
 */
import { decodeMessage, headerLookup, type BusConnection } from '@careen/bus';
import { NodesSeen, type NodesSeenPayload } from '@careen/contracts';
import { BUS, SERVICE_CONFIG, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type Subscription } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import { type AgbotConfig } from '../agbot.config';
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { GrantStore } from './grant-store';

export const NODES_SEEN_QUEUE = 'agbot-nodes-seen';

@Injectable()
export class NodesSeenSubscription implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | undefined;
  private handled: Promise<void> = Promise.resolve();

  constructor(
    @Inject(BUS) private readonly bus: BusConnection,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    @Inject(SERVICE_CONFIG) private readonly config: AgbotConfig,
    private readonly dataSource: DataSource,
    private readonly mirror: ExchangeMirror,
    private readonly grants: GrantStore,
  ) {}

  onApplicationBootstrap(): void {
    this.subscription = this.bus.nc.subscribe(NodesSeen.filter, {
      queue: NODES_SEEN_QUEUE,
      callback: (error, message) => {
        if (error) return;
        const decoded = decodeMessage(
          NodesSeen.payload,
          NodesSeen.type,
          message.data,
          headerLookup(message.headers),
        );
        if (!decoded.ok) {
          this.logger.warn(
            { subject: message.subject, reason: decoded.reason },
            'ignored unreadable nodes seen',
          );
          return;
        }
        this.handled = this.handled.then(() => this.take(decoded.payload));
      },
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.subscription?.unsubscribe();
    await this.handled;
  }

  private async take({ org, nodes, seenAt }: NodesSeenPayload): Promise<void> {
    try {
      await this.mirror.markSeen(org, nodes, seenAt);
      await this.grants.renewOnHeartbeat(
        this.dataSource.manager,
        org,
        nodes,
        new Date(seenAt),
        this.config.CAREEN_UPGRADE_LEASE_SECONDS,
      );
    } catch (error) {
      // The database is away: the nodes' next polls say it again.
      this.logger.warn({ err: String(error), org, nodes: nodes.length }, 'nodes seen not taken');
    }
  }
}
