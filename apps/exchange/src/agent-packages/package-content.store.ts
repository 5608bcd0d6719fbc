/**
 * The bytes of agent packages, in Postgres as fixed-size chunks next to the package row, so a
 * package, its bytes and its change record commit or vanish together. Chunk `seq` holds the
 * bytes [seq × chunkSize, (seq + 1) × chunkSize); a range is read one chunk at a time.
 *
 * A fleet downloads the same package thousands of times within a rollout's window, so the
 * chunks read are kept in memory, the least recently read going first past CACHE_BYTES. They
 * are kept by the package's sha256 as well as its version: a version removed and published
 * again with other bytes is never served the old ones.
 */
import { createReadStream } from 'node:fs';
import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource, type EntityManager } from 'typeorm';
import { type AgentPackageEntity } from './agent-package.entity';

export const CHUNK_SIZE = 1024 * 1024;
const CACHE_BYTES = 64 * CHUNK_SIZE;

/** Which stored package to read: its version and the sha256 of its bytes. */
type StoredPackage = Pick<AgentPackageEntity, 'version' | 'sha256' | 'chunkSize'>;

@Injectable()
export class PackageContentStore {
  private readonly chunks = new LRUCache<string, Buffer>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (chunk) => Math.max(1, chunk.length),
  });

  constructor(private readonly dataSource: DataSource) {}

  /** Copies a spooled file into chunks of `CHUNK_SIZE`, inside the caller's transaction. */
  async write(manager: EntityManager, version: string, path: string): Promise<void> {
    let seq = 0;
    for await (const chunk of readInChunks(path, CHUNK_SIZE)) {
      await manager.query(
        'INSERT INTO exchange.agent_package_chunks (version, seq, data) VALUES ($1, $2, $3)',
        [version, seq++, chunk],
      );
    }
  }

  /** Yields the bytes [start, end] (inclusive) of a stored package. */
  async *read(stored: StoredPackage, start: number, end: number): AsyncGenerator<Buffer> {
    const { chunkSize } = stored;
    for (let seq = Math.floor(start / chunkSize); seq * chunkSize <= end; seq++) {
      const chunkStart = seq * chunkSize;
      const from = Math.max(start, chunkStart) - chunkStart;
      const to = Math.min(end, chunkStart + chunkSize - 1) - chunkStart;
      const chunk = await this.chunk(stored, seq);
      if (chunk.length <= to) {
        throw new Error(`agent package ${stored.version} lacks bytes of chunk ${seq}`);
      }
      yield chunk.subarray(from, to + 1);
    }
  }

  private async chunk({ version, sha256 }: StoredPackage, seq: number): Promise<Buffer> {
    const key = `${version}\u0000${sha256}\u0000${seq}`;
    const kept = this.chunks.get(key);
    if (kept) return kept;
    const rows: { data: Buffer }[] = await this.dataSource.query(
      'SELECT data FROM exchange.agent_package_chunks WHERE version = $1 AND seq = $2',
      [version, seq],
    );
    const data = rows[0]?.data;
    if (!data) throw new Error(`agent package ${version} lacks chunk ${seq}`);
    this.chunks.set(key, data);
    return data;
  }
}

/** A file's bytes regrouped into buffers of exactly `size` bytes (the last may be shorter). */
async function* readInChunks(path: string, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingLength = 0;
  for await (const piece of createReadStream(path, { highWaterMark: size })) {
    let buffer = piece as Buffer;
    while (pendingLength + buffer.length >= size) {
      const take = size - pendingLength;
      yield Buffer.concat([...pending, buffer.subarray(0, take)]);
      buffer = buffer.subarray(take);
      pending = [];
      pendingLength = 0;
    }
    if (buffer.length > 0) {
      pending.push(buffer);
      pendingLength += buffer.length;
    }
  }
  if (pendingLength > 0) yield Buffer.concat(pending);
}
