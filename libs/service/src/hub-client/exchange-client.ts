/**
 * A hub service's HTTP client of the exchange, signed in as a user: it trades the password for
 * a short-lived token and refreshes it before it expires (or when refused). The same token opens
 * the other hub services (they verify it against the exchange's keys), so `call` may address any
 * of them by its base URL.
 */
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

export class ExchangeRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ExchangeRequestError';
  }
}

interface Listing<T> {
  items: T[];
}

/** Refresh when this share of the token's life has gone. */
const REFRESH_AT = 0.8;

export class ExchangeClient {
  private token: { value: string; refreshAt: number } | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly credentials: ExchangeCredentials,
  ) {}

  async listOrgs(): Promise<string[]> {
    const orgs = await this.request<Listing<{ id: string }>>('GET', '/v1/orgs');
    return orgs.items.map((org) => org.id);
  }

  async list<T>(
    org: string,
    collection: 'nodes' | 'services' | 'deployment-policies' | 'management-policies',
  ): Promise<T[]> {
    return (await this.request<Listing<T>>('GET', `/v1/orgs/${encodeURIComponent(org)}/${collection}`)).items;
  }

  async putDesiredWorkloads(org: string, node: string, workloads: object[]): Promise<void> {
    await this.request(
      'PUT',
      `/v1/orgs/${encodeURIComponent(org)}/nodes/${encodeURIComponent(node)}/workloads`,
      { workloads },
    );
  }

  /** A call to the exchange, or with `baseUrl` to another hub service, as this client's user. */
  call<T>(method: string, path: string, body?: object, baseUrl = this.baseUrl): Promise<T> {
    return this.request<T>(method, path, body, false, baseUrl);
  }

  private async request<T>(
    method: string,
    path: string,
    body?: object,
    retried = false,
    baseUrl = this.baseUrl,
  ): Promise<T> {
    const response = await fetch(new URL(path, baseUrl), {
      method,
      headers: {
        authorization: `Bearer ${await this.bearer()}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (response.status === 401 && !retried) {
      this.token = undefined;
      return this.request(method, path, body, true, baseUrl);
    }
    if (!response.ok) throw await requestError(method, path, response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  private async bearer(): Promise<string> {
    if (this.token && Date.now() < this.token.refreshAt) return this.token.value;
    const { org, username, password } = this.credentials;
    const response = await fetch(new URL('/v1/auth/token', this.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ org, username, password }),
    });
    if (!response.ok) throw await requestError('POST', '/v1/auth/token', response);
    const issued = (await response.json()) as { accessToken: string; expiresIn: number };
    this.token = { value: issued.accessToken, refreshAt: Date.now() + issued.expiresIn * 1_000 * REFRESH_AT };
    return issued.accessToken;
  }
}

async function requestError(method: string, path: string, response: Response): Promise<ExchangeRequestError> {
  const text = await response.text().catch(() => '');
  let message = text;
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    // not JSON: keep the text
  }
  return new ExchangeRequestError(
    response.status,
    `${new URL(response.url).host} answered ${response.status} to ${method} ${path}: ${message}`,
  );
}
