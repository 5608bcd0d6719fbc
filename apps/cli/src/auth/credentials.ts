/**
 * Which exchange to talk to and with which credentials, from flags, environment and the stored
 * login. Pure: the clock and the stored config come in, so every rule is tested without I/O.
 *
 * Credentials, first match wins: CAREEN_TOKEN; CAREEN_API_KEY (a service account's key);
 * CAREEN_USER and CAREEN_PASSWORD both set (Basic, org from CAREEN_ORG); the login stored by `careen login` for that same exchange, until it ends
 * (its access token renewed with its refresh token as it runs out, see StoredLoginBearer).
 */
import { CliError } from '../cli-errors';
import { type CliEnv } from '../cli-env';
import { type StoredConfig } from '../config/config-store';

export const DEFAULT_EXCHANGE_URL = 'http://127.0.0.1:8080';
export const LOGIN_HINT = 'run "careen login" to log in again';

/** Credentials sent as they are on every request. */
export type FixedCredentials =
  { scheme: 'bearer'; token: string } | { scheme: 'basic'; org: string; username: string; password: string };

/** The stored login, whose access token is renewed with its refresh token. */
export interface RenewableLogin {
  scheme: 'login';
  stored: StoredConfig & { exchangeUrl: string; refreshToken: string };
}

export type Credentials = FixedCredentials | RenewableLogin;

export interface ResolvedLogin {
  credentials: Credentials;
  /** The org the credentials belong to, when known without asking the exchange. */
  org?: string;
  /** Added to the message when the exchange answers 401 to these credentials. */
  refusalHint: string;
}

/** `http(s)://host[:port][/path]` without a trailing slash, or a CliError naming the value. */
export function normalizeExchangeUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`invalid exchange URL "${raw}": expected http://host:port or https://host`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`invalid exchange URL "${raw}": expected http://host:port or https://host`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new CliError(`invalid exchange URL "${raw}": credentials, query and fragment do not belong in it`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** --exchange, then CAREEN_EXCHANGE_URL, then the exchange of the stored login, then the default. */
export function resolveExchangeUrl(flag: string | undefined, env: CliEnv, stored: StoredConfig): string {
  return normalizeExchangeUrl(flag ?? env.exchangeUrl ?? stored.exchangeUrl ?? DEFAULT_EXCHANGE_URL);
}

export function resolveLogin(
  env: CliEnv,
  stored: StoredConfig,
  exchangeUrl: string,
  now: Date,
): ResolvedLogin {
  if (env.token) {
    return {
      credentials: { scheme: 'bearer', token: env.token },
      org: env.org,
      refusalHint: 'CAREEN_TOKEN was refused; get a new token',
    };
  }
  if (env.apiKey) {
    return {
      credentials: { scheme: 'bearer', token: env.apiKey },
      org: env.org,
      refusalHint:
        'CAREEN_API_KEY was refused: it may have been revoked or have expired; ask an org admin for a new key',
    };
  }
  // CAREEN_USER alone is only the default user of `careen login`.
  if (env.user && env.password) {
    if (!env.org) throw new CliError('CAREEN_USER and CAREEN_PASSWORD need CAREEN_ORG too');
    return {
      credentials: { scheme: 'basic', org: env.org, username: env.user, password: env.password },
      org: env.org,
      refusalHint: 'check CAREEN_ORG, CAREEN_USER and CAREEN_PASSWORD',
    };
  }
  const who = loginName(stored);
  if ((!stored.accessToken && !stored.refreshToken) || !stored.exchangeUrl) {
    throw new CliError(
      'not logged in: run "careen login" (scripts may set CAREEN_API_KEY, CAREEN_TOKEN, or CAREEN_ORG, CAREEN_USER and CAREEN_PASSWORD)',
    );
  }
  if (normalizeExchangeUrl(stored.exchangeUrl) !== exchangeUrl) {
    throw new CliError(
      `not logged in to ${exchangeUrl} (the stored login is for ${stored.exchangeUrl}): run "careen login --exchange ${exchangeUrl}"`,
    );
  }
  const { refreshToken, exchangeUrl: storedUrl } = stored;
  // A login without a refresh token (kept by an older careen) lasts as long as its access token.
  const expiresAt = Date.parse((refreshToken ? stored.refreshExpiresAt : stored.expiresAt) ?? '');
  if (Number.isNaN(expiresAt) || expiresAt <= now.getTime()) {
    const when = Number.isNaN(expiresAt) ? '' : ` at ${formatInstant(new Date(expiresAt))}`;
    throw new CliError(`your login as ${who} to ${exchangeUrl} expired${when}: ${LOGIN_HINT}`);
  }
  return {
    credentials: refreshToken
      ? { scheme: 'login', stored: { ...stored, exchangeUrl: storedUrl, refreshToken } }
      : { scheme: 'bearer', token: stored.accessToken ?? '' },
    org: stored.org,
    refusalHint: LOGIN_HINT,
  };
}

/** `org/user` of the stored login, as messages name it. */
export function loginName(stored: StoredConfig): string {
  return stored.org && stored.username ? `${stored.org}/${stored.username}` : 'unknown user';
}

/** RFC 3339 UTC to the second: what the CLI prints for instants. */
export function formatInstant(instant: Date): string {
  return instant.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function authorizationHeader(credentials: FixedCredentials): string {
  switch (credentials.scheme) {
    case 'bearer':
      return `Bearer ${credentials.token}`;
    case 'basic':
      return `Basic ${Buffer.from(`${credentials.org}/${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`;
  }
}
