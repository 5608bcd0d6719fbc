/**
 * Service-account keys for services other than the exchange: each request's key is shown to the
 * exchange's GET /v1/whoami, which checks it against its store and answers whose it is. Nothing
 * is remembered beyond the request (concurrent requests with one key share a round trip), so a
 * key the exchange has revoked or let expire is refused by every service from that moment on.
 * Keys are for admin tools and pipelines, whose request rates bear the extra round trip.
 */
import { type KeyAuthenticator } from './api-key';
import { AuthenticationError, AuthErrorCode, AuthServiceUnavailableError } from './auth.errors';
import { askExchange } from './exchange-call';
import { type ServicePrincipal } from './principal';
import { isScope } from './scopes';

export class ExchangeKeyAuthenticator implements KeyAuthenticator {
  private readonly whoamiUrl: URL;
  private readonly inFlight = new Map<string, Promise<ServicePrincipal>>();

  constructor(
    exchangeUrl: URL,
    private readonly options: { timeoutMs?: number; fetch?: typeof fetch } = {},
  ) {
    this.whoamiUrl = new URL(`${exchangeUrl.href.replace(/\/+$/, '')}/v1/whoami`);
  }

  authenticate(key: string): Promise<ServicePrincipal> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const attempt = this.ask(key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, attempt);
    return attempt;
  }

  private async ask(key: string): Promise<ServicePrincipal> {
    const answer = await askExchange(
      this.options.fetch ?? globalThis.fetch,
      this.whoamiUrl,
      { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } },
      this.options.timeoutMs ?? 5_000,
    );
    if (answer.rejected)
      throw new AuthenticationError(
        AuthErrorCode.InvalidCredentials,
        answer.message ?? 'invalid credentials',
      );
    const principal = servicePrincipalOf(answer.body);
    if (!principal) throw new AuthServiceUnavailableError('the exchange sent an unexpected answer for a key');
    return principal;
  }
}

/** The service principal the exchange's whoami describes, or undefined for anything else. */
export function servicePrincipalOf(body: unknown): ServicePrincipal | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { kind, org, account, key, scopes, projects } = body as Record<string, unknown>;
  if (kind !== 'service' || typeof org !== 'string' || typeof account !== 'string' || typeof key !== 'string')
    return undefined;
  if (!Array.isArray(scopes) || !scopes.every(isScope)) return undefined;
  if (projects === undefined) return { kind, org, account, key, scopes };
  if (!Array.isArray(projects) || !projects.every((each) => typeof each === 'string')) return undefined;
  return { kind, org, account, key, scopes, projects: projects as string[] };
}
