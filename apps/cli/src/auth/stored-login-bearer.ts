/**
 * The access token of the stored login, renewed with its refresh token before it runs out, so
 * that a command or a watch lasting hours keeps working as long as the login does. Each renewal
 * is written back at once: the refresh token is good for one renewal, and the next command (or
 * another `careen` running beside this one) goes on from the new one. It never asks for a
 * password; when the exchange refuses to renew, the user is told to log in again.
 */
import { type BearerSource, type Exchange } from '@careen/api-client';
import { decodeJwt } from 'jose';
import { CliError } from '../cli-errors';
import { type ConfigStore, type StoredConfig } from '../config/config-store';
import { ExchangeRefusal } from '../http/exchange-errors';
import { formatInstant, LOGIN_HINT, loginName, type RenewableLogin } from './credentials';

/** What the exchange answers to a login or a renewal. */
export type TokenAnswer = Exchange.components['schemas']['TokenResponse'];

/** Renew when this share of the access token's life is left. */
const RENEW_WITH_LIFE_LEFT = 0.2;
/** For a token whose lifetime cannot be read: renew this long before it expires. */
const RENEW_AHEAD_MS = 60_000;

/** The stored fields of a login the exchange has just answered, the access token's expiry counted from `issuedAt`. */
export function storedTokens(answer: TokenAnswer, issuedAt: Date): StoredConfig {
  const after = (seconds: number) => formatInstant(new Date(issuedAt.getTime() + seconds * 1000));
  return {
    accessToken: answer.accessToken,
    expiresAt: after(answer.expiresIn),
    refreshToken: answer.refreshToken,
    refreshExpiresAt: answer.refreshExpiresIn === undefined ? undefined : after(answer.refreshExpiresIn),
  };
}

/** When to renew an access token that expires at `expiresAt` (ms): a fifth of its life before. */
export function renewalTime(accessToken: string | undefined, expiresAt: number): number {
  try {
    const { iat, exp } = decodeJwt(accessToken ?? '');
    if (typeof iat === 'number' && typeof exp === 'number' && exp > iat) {
      return expiresAt - (exp - iat) * 1000 * RENEW_WITH_LIFE_LEFT;
    }
  } catch {
    // Not a JWT: the fixed margin below.
  }
  return expiresAt - RENEW_AHEAD_MS;
}

export class StoredLoginBearer implements BearerSource {
  private login: StoredConfig;
  private pending: Promise<string> | undefined;

  constructor(
    login: RenewableLogin,
    private readonly store: Pick<ConfigStore, 'load' | 'save'>,
    private readonly renew: (refreshToken: string) => Promise<TokenAnswer>,
    private readonly now: () => Date,
  ) {
    this.login = login.stored;
  }

  bearer(): Promise<string> {
    if (this.fresh(this.login)) return Promise.resolve(this.login.accessToken!);
    this.pending ??= this.renewed().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** The access token was refused: the next request renews it. */
  invalidate(): void {
    this.login = { ...this.login, accessToken: undefined, expiresAt: undefined };
  }

  private fresh(login: StoredConfig): boolean {
    if (!login.accessToken || !login.expiresAt) return false;
    return this.now().getTime() < renewalTime(login.accessToken, Date.parse(login.expiresAt));
  }

  private async renewed(): Promise<string> {
    // Another careen may have renewed the login since it was read: its tokens are the live ones.
    await this.adoptStored();
    if (this.fresh(this.login)) return this.login.accessToken!;
    const used = this.login.refreshToken!;
    let answer: TokenAnswer;
    try {
      const issuedAt = this.now();
      answer = await this.renew(used);
      this.login = { ...this.login, ...storedTokens(answer, issuedAt) };
    } catch (error) {
      // 401: the token is used up or the login ended; 403: the org or its identity provider no
      // longer lets this user in (passwords switched off, taken out of every mapped group).
      if (!(error instanceof ExchangeRefusal) || (error.status !== 401 && error.status !== 403)) throw error;
      // Refused because another careen used the same token first: go on with what it stored.
      if (await this.adoptStored()) return this.renewed();
      throw new CliError(
        `the exchange ended your login as ${loginName(this.login)} to ${this.login.exchangeUrl} (${error.body?.message ?? error.message}): ${LOGIN_HINT}`,
      );
    }
    // Stored only over the login it renewed: a `careen login` or `logout` since then is kept.
    const latest = await this.store.load();
    if (latest.refreshToken === used) await this.store.save({ ...latest, ...this.login });
    return answer.accessToken;
  }

  /** Takes the stored login when it is this one's successor; says whether it did. */
  private async adoptStored(): Promise<boolean> {
    const stored = await this.store.load();
    if (stored.exchangeUrl !== this.login.exchangeUrl || stored.org !== this.login.org) return false;
    if (stored.username !== this.login.username) return false;
    if (!stored.refreshToken) {
      throw new CliError(
        `you logged out of ${this.login.exchangeUrl} as ${loginName(this.login)} meanwhile: ${LOGIN_HINT}`,
      );
    }
    if (stored.refreshToken === this.login.refreshToken) return false;
    this.login = stored;
    return true;
  }
}
