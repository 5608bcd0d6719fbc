/**
 * Receives an uploaded package into a private temporary file while counting, hashing and
 * checking the gzip magic, so neither memory nor a database transaction is held open for
 * the length of a slow upload. The caller owns the file and must `discard()` it.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError } from '@careen/contracts';
import { notGzip, packageTooLarge, uploadInterrupted } from './agent-packages.errors';

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

export interface SpooledPackage {
  path: string;
  size: number;
  sha256: string;
  discard(): Promise<void>;
}

export async function spoolPackage(source: Readable, maxBytes: number): Promise<SpooledPackage> {
  const folder = await mkdtemp(join(tmpdir(), 'careen-agent-package-'));
  const path = join(folder, 'package.tar.gz');
  const discard = () => rm(folder, { recursive: true, force: true });
  const check = new PackageBytes(maxBytes);
  // The source is piped rather than joined to the pipeline, so a rejection leaves the request
  // open for its error response instead of destroying the connection under it.
  const stored = pipeline(check, createWriteStream(path, { mode: 0o600 }));
  const onSourceError = (error: Error) => check.destroy(error);
  const onSourceClose = () => {
    if (!source.readableEnded) check.destroy(new Error('the connection closed before the body ended'));
  };
  source.on('error', onSourceError);
  source.on('close', onSourceClose);
  source.pipe(check);
  try {
    await stored;
    check.assertComplete();
  } catch (error) {
    source.unpipe(check);
    await discard();
    if (error instanceof DomainError) throw error;
    throw uploadInterrupted(error instanceof Error ? error.message : String(error));
  } finally {
    source.off('error', onSourceError);
    source.off('close', onSourceClose);
  }
  return { path, size: check.size, sha256: check.hash.digest('hex'), discard };
}

/** Passes the bytes through, failing as soon as they stop looking like an acceptable package. */
class PackageBytes extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  private head = Buffer.alloc(0);

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(packageTooLarge(this.maxBytes));
      return;
    }
    if (this.head.length < GZIP_MAGIC.length) {
      this.head = Buffer.concat([this.head, chunk]).subarray(0, GZIP_MAGIC.length);
      if (!GZIP_MAGIC.subarray(0, this.head.length).equals(this.head)) {
        done(notGzip());
        return;
      }
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  assertComplete(): void {
    if (this.head.length < GZIP_MAGIC.length) throw notGzip();
  }
}
