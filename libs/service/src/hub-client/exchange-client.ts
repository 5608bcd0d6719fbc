/**
 * A hub service's client of the exchange, signed in as a user, on the client generated from
 * the exchange's document: it trades the password for a short-lived token and refreshes it
 * before it expires (or once when refused). The same token opens the other hub services (they
 * verify it against the exchange's keys), so `service` gives a client of any of them.
 */
import { dataOf, type Exchange, IssuedToken, serviceClient, type ServiceClient } from '@careen/api-client';

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

export class ExchangeClient {
  /** The exchange's API, as this client's user. */
  readonly api: ServiceClient<Exchange.paths>;
  private readonly login: IssuedToken;

  constructor(baseUrl: string, { org, username, password }: ExchangeCredentials) {
    const signIn = serviceClient<Exchange.paths>(baseUrl);
    this.login = new IssuedToken(() =>
      dataOf(signIn.POST('/v1/auth/token', { body: { org, username, password } })),
    );
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
