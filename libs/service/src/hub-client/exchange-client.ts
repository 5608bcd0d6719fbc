/**
 * A hub service's client of the exchange, signed in as a user, on the client generated from
 * the exchange's document: it trades the password for a short-lived token and refreshes it
 * before it expires (or once when refused). The same token opens the other hub services (they
 * verify it against the exchange's keys), so `service` gives a client of any of them.
 */
import {
  type BearerSource,
  dataOf,
  type Exchange,
  serviceClient,
  type ServiceClient,
} from '@careen/api-client';

export interface ExchangeCredentials {
  org: string;
  username: string;
  password: string;
}

/** Credentials from a service's `org/username` setting and its password, or undefined without a password. */
export function exchangeCredentials(
  user: string,
  password: string | undefined,
): ExchangeCredentials | undefined {
  if (!password) return undefined;
  const [org, username] = user.split('/') as [string, string];
  return { org, username, password };
}

/** Refresh when this share of the token's life has gone. */
const REFRESH_AT = 0.8;

/** The user's bearer token, fetched on first use and again before it expires. */
class UserLogin implements BearerSource {
  private token: { value: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly exchange: ServiceClient<Exchange.paths>,
    private readonly credentials: ExchangeCredentials,
  ) {}

  bearer(): Promise<string> {
    if (this.token && Date.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.pending ??= this.signIn().finally(() => (this.pending = undefined));
    return this.pending;
  }

  invalidate(): void {
    this.token = undefined;
  }

  private async signIn(): Promise<string> {
    const { org, username, password } = this.credentials;
    const issued = await dataOf(this.exchange.POST('/v1/auth/token', { body: { org, username, password } }));
    this.token = { value: issued.accessToken, refreshAt: Date.now() + issued.expiresIn * 1_000 * REFRESH_AT };
    return issued.accessToken;
  }
}

export class ExchangeClient {
  /** The exchange's API, as this client's user. */
  readonly api: ServiceClient<Exchange.paths>;
  private readonly login: UserLogin;

  constructor(baseUrl: string, credentials: ExchangeCredentials) {
    this.login = new UserLogin(serviceClient<Exchange.paths>(baseUrl), credentials);
    this.api = serviceClient<Exchange.paths>(baseUrl, { auth: this.login });
  }

  /** Another hub service's API (`Agbot.paths`, …) at `baseUrl`, as this client's user. */
  service<Paths extends object>(baseUrl: string): ServiceClient<Paths> {
    return serviceClient<Paths>(baseUrl, { auth: this.login });
  }

  async listOrgs(): Promise<string[]> {
    return (await dataOf(this.api.GET('/v1/orgs'))).items.map((org) => org.id);
  }
}
