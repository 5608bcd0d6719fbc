/**
 * Keeps the bus's account revocations in line with the keys: a bus user issued to a key that is
 * since revoked, removed (with its account or org) or ended is put in the account's revocations,
 * and the servers close its connections and refuse it; a user past its own end is taken out
 * again and forgotten. Run after each revocation commits and every few seconds on every replica
 * (a rotated key ends later, a crash may fall between commit and push); each run reads what is
 * due from the database and changes the account only where it differs, so runs may repeat and
 * replicas overlap. Off unless the exchange holds an operator signing key and a system user.
 */
import { syncNatsRevocations, type AccountSigner, type RevocationList } from '@careen/bus';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from '../exchange.config';

const SYNC_EVERY_MS = 10_000;

interface DueRow {
  user_key: string;
  ended: boolean;
}

@Injectable()
export class BusRevocations implements OnApplicationBootstrap, OnApplicationShutdown {
  private system: NatsConnection | undefined;
  private signer: AccountSigner | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const account = this.config.CAREEN_EXCHANGE_NATS_ACCOUNT;
    const operatorSigningKey = this.config.CAREEN_EXCHANGE_NATS_OPERATOR_SIGNING_KEY;
    const creds = this.config.CAREEN_EXCHANGE_NATS_SYSTEM_CREDS;
    if (!account) return;
    if (!operatorSigningKey || !creds) {
      this.logger.warn(
        {},
        'bus users of revoked keys are refused only at their end: CAREEN_EXCHANGE_NATS_OPERATOR_SIGNING_KEY and CAREEN_EXCHANGE_NATS_SYSTEM_CREDS are not set',
      );
      return;
    }
    this.signer = { account, operatorSigningKey };
    this.system = await connect({
      servers: this.config.CAREEN_NATS_URL.split(','),
      name: 'exchange-revocations',
      authenticator: credsAuthenticator(readFileSync(creds)),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
      noAsyncTraces: true,
    });
    this.timer = setInterval(() => void this.sync(), SYNC_EVERY_MS);
    this.timer.unref();
    void this.sync();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.queued;
    await this.running;
    await this.system?.close();
  }

  /**
   * Brings the account in line with the keys as committed now; resolves once done, or once the
   * failure is logged (the next run tries again). Runs one at a time: a call made meanwhile gets
   * one more run after this one.
   */
  sync(): Promise<void> {
    if (!this.system) return Promise.resolve();
    if (!this.running) {
      this.running = this.run().finally(() => (this.running = undefined));
      return this.running;
    }
    this.queued ??= this.running.then(() => {
      this.queued = undefined;
      return this.sync();
    });
    return this.queued;
  }

  private async run(): Promise<void> {
    try {
      const due = (await this.dataSource.query(
        `SELECT b.user_key, b.expires_at <= now() AS ended
           FROM exchange.bus_users b LEFT JOIN exchange.api_keys k ON k.id = b.api_key
          WHERE b.expires_at <= now() OR k.id IS NULL OR k.revoked_at IS NOT NULL OR k.expires_at <= now()`,
      )) as DueRow[];
      if (due.length === 0) return;
      const since = Math.floor(Date.now() / 1000);
      const revoke: RevocationList = {};
      for (const row of due) if (!row.ended) revoke[row.user_key] = since;
      const forget = due.filter((row) => row.ended).map((row) => row.user_key);
      const pushed = await syncNatsRevocations(this.system!, this.signer!, { revoke, forget });
      if (pushed)
        this.logger.info(
          { revoked: Object.keys(revoke).length, forgotten: forget.length },
          'bus revocations pushed',
        );
      if (forget.length > 0) {
        await this.dataSource.query('DELETE FROM exchange.bus_users WHERE user_key = ANY($1)', [forget]);
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'bus revocations not pushed; trying again shortly');
    }
  }
}
