/**
 * Every replica listens (a plain NATS subscription, nothing durable: a missed release only
 * makes a waiting request ask again at its lease check or deadline) to the releases published
 * on CAREEN_AGBOT, and passes each to the requests waiting for that group's slot. A message
 * that is not a valid release is logged and dropped.
 */
import { decodeMessage, headerLookup, type BusConnection } from '@careen/bus';
import { prepareCompiledCheck, UpgradeReleased } from '@careen/contracts';
import { BUS, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type Subscription } from '@nats-io/transport-node';
import { GroupReleases } from './group-releases';

@Injectable()
export class ReleaseSubscription implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | undefined;

  constructor(
    @Inject(BUS) private readonly bus: BusConnection,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    private readonly releases: GroupReleases,
  ) {}

  onApplicationBootstrap(): void {
    prepareCompiledCheck(UpgradeReleased.payload, 'body');
    this.subscription = this.bus.nc.subscribe(UpgradeReleased.filter, {
      callback: (error, message) => {
        if (error) return;
        const decoded = decodeMessage(
          UpgradeReleased.payload,
          UpgradeReleased.type,
          message.data,
          headerLookup(message.headers),
        );
        if (!decoded.ok) {
          this.logger.warn(
            { subject: message.subject, reason: decoded.reason },
            'ignored an unreadable release',
          );
          return;
        }
        this.releases.publish(decoded.payload.org, decoded.payload.haGroup);
      },
    });
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }
}
