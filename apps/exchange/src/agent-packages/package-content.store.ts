/**
 * The bytes of agent packages, in Postgres as fixed-size chunks next to the package row, so a
 * package, its bytes and its change record commit or vanish together. Chunk `seq` holds the
 * bytes [seq × chunkSize, (seq + 1) × chunkSize); a range is read one chunk at a time.
 */
import { createReadStream } from 'node:fs';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

export const CHUNK_SIZE = 1024 * 1024;

@Injectable()
export class PackageContentStore {
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
  async *read(version: string, chunkSize: number, start: number, end: number): AsyncGenerator<Buffer> {
    for (let seq = Math.floor(start / chunkSize); seq * chunkSize <= end; seq++) {
      const chunkStart = seq * chunkSize;
      const from = Math.max(start, chunkStart) - chunkStart;
      const length = Math.min(end, chunkStart + chunkSize - 1) - chunkStart - from + 1;
      const rows: { data: Buffer }[] = await this.dataSource.query(
        `SELECT substring(data FROM $3 FOR $4) AS data
           FROM exchange.agent_package_chunks WHERE version = $1 AND seq = $2`,
        [version, seq, from + 1, length],
      );
      const data = rows[0]?.data;
      if (!data || data.length !== length) {
        throw new Error(`agent package ${version} lacks bytes of chunk ${seq}`);
      }
      yield data;
    }
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
