/**
 * Downloads a package into `<dir>/<version>.tar.gz`, resuming a partial `.part` file left by an
 * interrupted try or an earlier run with `Range` + `If-Range` (the package's ETag is its sha256,
 * so a changed package is sent whole instead of spliced). Retries with backoff; an optional
 * byte rate keeps a node on a thin link usable while it downloads. With a `location` (a mirror)
 * the bytes come from there, and the exchange still says what they must be.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ReadableStream as WebReadableStream } from 'node:stream/web';
import { Backoff } from '../core/backoff';
import { type Clock, type RandomSource } from '../core/clock';
import { type ExchangeClient } from '../exchange/exchange-client';
import { type AgentPackage } from '../exchange/exchange.types';

export interface DownloadOptions {
  attempts: number;
  bytesPerSecond?: number;
  retry?: { baseMs: number; maxMs: number };
}

export interface DownloadEvents {
  resumed?(offset: number): void;
  retrying?(attempt: number, error: Error): void;
}

export class DownloadError extends Error {}

export class PackageDownload {
  constructor(
    private readonly exchange: ExchangeClient,
    private readonly dir: string,
    private readonly clock: Clock,
    private readonly random: RandomSource,
    private readonly options: DownloadOptions,
  ) {}

  fileOf(version: string): string {
    return join(this.dir, `${version}.tar.gz`);
  }

  partOf(version: string): string {
    return `${this.fileOf(version)}.part`;
  }

  /**
   * Answers the package's description and its complete file; a file already complete from an
   * earlier run is reused. Reading the description is retried like the bytes: a busy exchange
   * that times out once is no reason to give the upgrade up.
   */
  async fetch(
    version: string,
    events: DownloadEvents = {},
    signal?: AbortSignal,
    location?: string,
  ): Promise<{ pkg: AgentPackage; file: string }> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileOf(version);
    const part = this.partOf(version);
    const backoff = new Backoff(
      this.random,
      this.options.retry?.baseMs ?? 500,
      this.options.retry?.maxMs ?? 15_000,
    );
    let pkg: AgentPackage | undefined;
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.options.attempts; attempt++) {
      if (signal?.aborted) throw new DownloadError('stopped');
      try {
        pkg ??= await this.exchange.getPackage(version);
        if ((await sizeOf(file)) === pkg.size) return { pkg, file };
        await this.fetchOnce(pkg, part, events, signal, location);
        if ((await sizeOf(part)) < pkg.size) throw new DownloadError('the connection closed before the end');
        await rename(part, file);
        return { pkg, file };
      } catch (error) {
        lastError = error;
        if (attempt < this.options.attempts) {
          events.retrying?.(attempt, error as Error);
          await this.clock.sleep(backoff.next(), signal);
        }
      }
    }
    throw new DownloadError(
      `download of ${version} failed after ${this.options.attempts} tries: ${(lastError as Error).message}`,
    );
  }

  async discard(version: string): Promise<void> {
    await rm(this.fileOf(version), { force: true });
    await rm(this.partOf(version), { force: true });
  }

  private async fetchOnce(
    pkg: AgentPackage,
    part: string,
    events: DownloadEvents,
    signal?: AbortSignal,
    location?: string,
  ): Promise<void> {
    let offset = await sizeOf(part);
    // A part longer than the package is not this package's: start over.
    if (offset >= pkg.size) {
      await rm(part, { force: true });
      offset = 0;
    }
    const response = location
      ? await openMirror(location, offset, `"${pkg.sha256}"`, signal)
      : await this.exchange.openPackageContent(pkg.version, offset, `"${pkg.sha256}"`, signal);
    const partial = response.status === 206;
    if (partial) events.resumed?.(offset);
    else offset = 0;
    if (!response.body) throw new DownloadError('the exchange sent no body');
    const source = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    const stages: NodeJS.ReadWriteStream[] = [];
    if (this.options.bytesPerSecond) stages.push(throttle(this.options.bytesPerSecond, this.clock));
    await pipeline(
      source,
      ...(stages as [NodeJS.ReadWriteStream]),
      createWriteStream(part, { flags: partial ? 'a' : 'w', mode: 0o600 }),
      { signal },
    );
  }
}

/** The package's bytes from a mirror, from `offset` on when the mirror still holds the same file. */
async function openMirror(
  location: string,
  offset: number,
  etag: string,
  signal?: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = offset > 0 ? { range: `bytes=${offset}-`, 'if-range': etag } : {};
  let response: Response;
  try {
    response = await fetch(location, { headers, signal });
  } catch (error) {
    throw new DownloadError(`${new URL(location).origin} unreachable: ${(error as Error).message}`);
  }
  if (!response.ok) throw new DownloadError(`the package location answered ${response.status}`);
  return response;
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

/** Passes bytes on at no more than `bytesPerSecond`, in small slices. */
function throttle(bytesPerSecond: number, clock: Clock): Transform {
  const slice = Math.max(1024, Math.floor(bytesPerSecond / 20));
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      void (async () => {
        for (let at = 0; at < chunk.length; at += slice) {
          const piece = chunk.subarray(at, at + slice);
          this.push(piece);
          await clock.sleep((piece.length / bytesPerSecond) * 1000);
        }
      })().then(() => done(), done);
    },
  });
}
