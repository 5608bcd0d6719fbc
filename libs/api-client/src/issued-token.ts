/**
 * A bearer token the exchange issues (`POST /v1/auth/token`), fetched on first use and again
 * once a fifth of its life is left or after `invalidate`; callers asking at once share one
 * fetch.
 */
import { type BearerSource } from './resilient-fetch';

export interface Issued {
  accessToken: string;
  /** Seconds. */
  expiresIn: number;
}

/** Refresh when this share of the token's life has gone. */
const REFRESH_AT = 0.8;

export class IssuedToken implements BearerSource {
  private current: { token: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly issue: () => Promise<Issued>,
    private readonly now: () => number = Date.now,
  ) {}

  bearer(): Promise<string> {
    if (this.current && this.now() < this.current.refreshAt) return Promise.resolve(this.current.token);
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  invalidate(): void {
    this.current = undefined;
  }

  private async fetch(): Promise<string> {
    const { accessToken, expiresIn } = await this.issue();
    this.current = { token: accessToken, refreshAt: this.now() + expiresIn * 1_000 * REFRESH_AT };
    return accessToken;
  }
}
