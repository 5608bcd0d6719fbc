/**
 * The signed-in user's access token, renewed with the refresh token before it runs out, so that
 * an open console stays signed in for as long as the login lasts (the exchange's setting, 12
 * hours unless changed). Both tokens live in memory only; signing out ends the login on the
 * exchange.
 */
import type { components } from '@careen/api-client/src/generated/exchange';
import { ApiProblem, isRecord, problemFrom } from './problem';

/** What the exchange's token routes answer. */
export type TokenAnswer = components['schemas']['TokenResponse'];

/** Renew when this share of the access token's life is left. */
const RENEW_WITH_LIFE_LEFT = 0.2;
/** After a renewal that got no answer, try again this much later (while the token lasts). */
const RETRY_MS = 5_000;

export function isTokenAnswer(body: unknown): body is TokenAnswer {
  return isRecord(body) && typeof body.accessToken === 'string' && typeof body.expiresIn === 'number';
}

/** Why the session ended: the login's time ran out, or the exchange refused to renew it. */
export type SessionEnd = { expiredAt: number } | { refused: ApiProblem };

export class TokenSession {
  private accessToken: string;
  private refreshToken: string | undefined;
  private renewAt: number;
  /** When the login ends: the refresh token's expiry, else the access token's. */
  readonly endsAt: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;

  constructor(answer: TokenAnswer, issuedAt: number) {
    this.accessToken = answer.accessToken;
    this.refreshToken = answer.refreshToken;
    this.renewAt = renewalTime(answer, issuedAt);
    this.endsAt =
      issuedAt + (answer.refreshExpiresIn !== undefined ? answer.refreshExpiresIn : answer.expiresIn) * 1000;
  }

  /** The header every request carries: always the current token. */
  get authorization(): string {
    return `Bearer ${this.accessToken}`;
  }

  /** Renews the token ahead of its expiry until stopped; `onEnd` once the login is over. */
  keep(onEnd: (why: SessionEnd) => void): () => void {
    this.ended = false;
    const endTimer = setTimeout(() => this.end(onEnd, { expiredAt: this.endsAt }), this.endsAt - Date.now());
    const schedule = (at: number) => {
      this.timer = setTimeout(() => void renew(), Math.max(0, at - Date.now()));
    };
    const renew = async () => {
      if (!this.refreshToken || this.ended) return;
      const issuedAt = Date.now();
      const answer = await fetch('/exchange/v1/auth/token/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: this.refreshToken }),
      }).catch(() => undefined);
      if (this.ended) return;
      const body: unknown = await answer?.json().catch(() => undefined);
      // 401: the login ended; 403: the org or its identity provider no longer lets the user in.
      if (answer?.status === 401 || answer?.status === 403) {
        return this.end(onEnd, { refused: problemFrom(answer.status, body, 'exchange') });
      }
      // No answer or not one: the token may still last long enough for another try.
      if (!answer?.ok || !isTokenAnswer(body)) return schedule(Date.now() + RETRY_MS);
      this.accessToken = body.accessToken;
      this.refreshToken = body.refreshToken;
      this.renewAt = renewalTime(body, issuedAt);
      schedule(this.renewAt);
    };
    schedule(this.refreshToken ? this.renewAt : this.endsAt);
    return () => {
      this.ended = true;
      clearTimeout(endTimer);
      clearTimeout(this.timer);
    };
  }

  /** Ends the login on the exchange (signing out): its refresh token renews nothing any more. */
  async revoke(): Promise<void> {
    const refreshToken = this.refreshToken;
    this.refreshToken = undefined;
    if (!refreshToken) return;
    const answer = await fetch('/exchange/v1/auth/token/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken }),
    }).catch((error: unknown) => {
      throw new ApiProblem(0, `The exchange cannot be reached (${(error as Error).message}).`, 'UNREACHABLE');
    });
    if (!answer.ok) throw problemFrom(answer.status, await answer.json().catch(() => undefined), 'exchange');
  }

  private end(onEnd: (why: SessionEnd) => void, why: SessionEnd): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    onEnd(why);
  }
}

function renewalTime(answer: TokenAnswer, issuedAt: number): number {
  return issuedAt + answer.expiresIn * 1000 * (1 - RENEW_WITH_LIFE_LEFT);
}
