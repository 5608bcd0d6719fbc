/**
 * The exchange's key set as every service but the exchange holds it, from GET /v1/auth/jwks.
 *
 * It is fetched when the service starts, again when a token names a key it does not hold (at
 * most once per cooldown), and in the background once it is older than its maximum age. A
 * fetch that fails or times out keeps the keys already held: an exchange too busy to answer in
 * time, or restarting, must not make a service refuse every token it can check. Only a key it
 * has never seen needs the exchange to answer. (A fetch that blocked each lookup once the keys
 * were old turned a saturated exchange into minutes of 503s at the agbot.)
 */
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

export interface RemoteKeySetOptions {
  /** No refetch within this long after the last attempt, even for an unknown kid. Default 30 s. */
  cooldownMs?: number;
  /** Refetched in the background once this old, so retired keys stop being trusted. Default 10 min. */
  maxAgeMs?: number;
  /** Give up on a key-set request after this long. Default 5 s. */
  timeoutMs?: number;
  clock?: () => Date;
}

interface HeldKeys {
  lookup: JWTVerifyGetKey;
  fetchedAt: number;
}

export class RemoteKeySet {
  private held: HeldKeys | undefined;
  private fetching: Promise<HeldKeys> | undefined;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly url: URL,
    private readonly options: RemoteKeySetOptions = {},
  ) {}

  /** Fetches the key set now, ahead of the tokens that need it; a failure is left to their lookups. */
  async prefetch(): Promise<void> {
    await this.fetch().catch(() => undefined);
  }

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const held = this.held ?? (await this.fetch());
    if (this.now() - held.fetchedAt >= (this.options.maxAgeMs ?? 600_000) && !this.coolingDown()) {
      void this.prefetch();
    }
    try {
      return await held.lookup(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || this.coolingDown()) throw error;
      return (await this.fetch()).lookup(header, token);
    }
  };

  private coolingDown(): boolean {
    return this.now() - this.lastAttemptAt < (this.options.cooldownMs ?? 30_000);
  }

  private fetch(): Promise<HeldKeys> {
    this.fetching ??= this.download().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private async download(): Promise<HeldKeys> {
    this.lastAttemptAt = this.now();
    const response = await fetch(this.url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
    });
    if (!response.ok) throw new Error(`the key set answered ${response.status}`);
    // createLocalJWKSet refuses anything that is not a key set.
    const lookup = createLocalJWKSet((await response.json()) as JSONWebKeySet);
    this.held = { lookup, fetchedAt: this.now() };
    return this.held;
  }

  private now(): number {
    return this.options.clock?.().getTime() ?? Date.now();
  }
}
