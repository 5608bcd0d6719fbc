import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { DomainError } from '@careen/contracts';
import { AgentPackageErrorCode } from './agent-packages.errors';
import { spoolPackage } from './package-spool';

const gzipLike = (size: number) => Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(size - 2, 7)]);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return error instanceof DomainError ? error.code : `not a domain error: ${String(error)}`;
}

describe('receiving an uploaded package', () => {
  it('stores the bytes in a private file with their size and sha256, and discards it', async () => {
    const bytes = gzipLike(10_000);
    const spooled = await spoolPackage(Readable.from([bytes.subarray(0, 1), bytes.subarray(1)]), 10_000);
    expect(spooled.size).toBe(10_000);
    expect(spooled.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect((await readFile(spooled.path)).equals(bytes)).toBe(true);
    expect((await stat(spooled.path)).mode & 0o777).toBe(0o600);
    await spooled.discard();
    await expect(stat(spooled.path)).rejects.toThrow();
  });

  it('stops reading with 413 as soon as a stream without a length passes the limit', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled++;
        this.push(pulled === 1 ? gzipLike(1024) : Buffer.alloc(1024));
      },
    });
    expect(await codeOf(spoolPackage(endless, 8 * 1024))).toBe(AgentPackageErrorCode.TooLarge);
    expect(pulled).toBeLessThan(64);
  });

  it('refuses bytes that do not start with the gzip magic, and empty bodies', async () => {
    expect(await codeOf(spoolPackage(Readable.from([Buffer.from('PK\u0003\u0004')]), 1000))).toBe(
      AgentPackageErrorCode.NotGzip,
    );
    expect(await codeOf(spoolPackage(Readable.from([Buffer.from([0x1f])]), 1000))).toBe(
      AgentPackageErrorCode.NotGzip,
    );
    expect(await codeOf(spoolPackage(Readable.from([]), 1000))).toBe(AgentPackageErrorCode.NotGzip);
  });

  it('reports an upload that breaks off as interrupted', async () => {
    const broken = new Readable({
      read() {
        this.push(gzipLike(100));
        this.destroy(new Error('socket hang up'));
      },
    });
    expect(await codeOf(spoolPackage(broken, 1000))).toBe(AgentPackageErrorCode.UploadInterrupted);
  });
});
