/**
 * NATS credentials for a service account's key: a user of the services' account that may only
 * publish its own org's request subjects and hear the replies on its own inbox, lasting
 * CAREEN_BUS_CREDENTIALS_TTL_SECONDS and never past the key's end. The server enforces the
 * subjects and the end; the maintenance service checks the key sent with each request as HTTP
 * checks it, so a revoked key is refused at once. Each user issued is kept until it ends, so that
 * the users of a revoked key are revoked on the bus too (BusRevocations).
 */
import { type ServicePrincipal } from '@careen/auth';
import { issueNatsUser } from '@careen/bus';
import { DomainError, ORG_REQUEST_SUBJECTS } from '@careen/contracts';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from '../exchange.config';
import { type BusCredentialsResponse } from './dto/bus-credentials.response';

@Injectable()
export class BusCredentialsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig,
  ) {}

  async issue(principal: ServicePrincipal): Promise<BusCredentialsResponse> {
    const account = this.config.CAREEN_EXCHANGE_NATS_ACCOUNT;
    const signingKey = this.config.CAREEN_EXCHANGE_NATS_SIGNING_KEY;
    if (!account || !signingKey) {
      throw new DomainError(
        'unavailable',
        'BUS_CREDENTIALS_UNAVAILABLE',
        'this exchange issues no bus credentials: CAREEN_EXCHANGE_NATS_ACCOUNT and CAREEN_EXCHANGE_NATS_SIGNING_KEY are not set',
      );
    }
    const [key] = (await this.dataSource.query(
      'SELECT least(expires_at, now() + make_interval(secs => $2)) AS ends FROM exchange.api_keys WHERE id = $1',
      [principal.key, this.config.CAREEN_BUS_CREDENTIALS_TTL_SECONDS],
    )) as { ends: Date }[];
    // The key was checked a moment ago; removed since, it gets nothing.
    if (!key)
      throw new DomainError(
        'unauthenticated',
        'INVALID_CREDENTIALS',
        `key ${principal.key} no longer exists`,
      );
    const subjects = {
      start: ORG_REQUEST_SUBJECTS.start(principal.org),
      complete: ORG_REQUEST_SUBJECTS.complete(principal.org),
    };
    const inboxPrefix = `_INBOX_${principal.key}`;
    const issued = await issueNatsUser(
      { account, signingKey },
      {
        name: `${principal.org}/sa:${principal.account}/${principal.key}`,
        publish: [subjects.start, subjects.complete],
        subscribe: [`${inboxPrefix}.>`],
        expiresAt: key.ends,
      },
    );
    await this.dataSource.query(
      'INSERT INTO exchange.bus_users (user_key, api_key, expires_at) VALUES ($1, $2, $3)',
      [issued.user, principal.key, key.ends],
    );
    return { ...issued, inboxPrefix, subjects, expiresAt: key.ends.toISOString() };
  }
}
