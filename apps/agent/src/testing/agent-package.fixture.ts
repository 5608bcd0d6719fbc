/** Builds agent packages for the agent's specs: a manifest, a payload, an optional health check. */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

export interface PackageFixture {
  version: string;
  /** Shell script shipped as packages/health-check. */
  healthCheck?: string;
  /** Bytes of incompressible filler, for downloads that take a while. */
  payloadBytes?: number;
}

export async function buildPackage(fixture: PackageFixture): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    archive.on('data', (chunk) => chunks.push(chunk as Buffer));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
  const add = (name: string, content?: string | Buffer, mode = 0o644) =>
    new Promise<void>((resolve, reject) =>
      archive.entry(
        {
          name,
          type: content === undefined ? 'directory' : 'file',
          mode: content === undefined ? 0o755 : mode,
        },
        content ?? '',
        (error) => (error ? reject(error) : resolve()),
      ),
    );
  await add('package.json', JSON.stringify({ version: fixture.version, packagesVersion: fixture.version }));
  await add('packages/');
  await add('packages/careen-agent.txt', `careen agent ${fixture.version}\n`);
  if (fixture.healthCheck !== undefined)
    await add('packages/health-check', `#!/bin/sh\n${fixture.healthCheck}\n`, 0o755);
  if (fixture.payloadBytes) {
    // Random bytes do not compress, so the package is as large as asked.
    const { randomBytes } = await import('node:crypto');
    await add('packages/payload.bin', randomBytes(fixture.payloadBytes));
  }
  archive.finalize();
  return gzipSync(await done);
}

export interface SigningPair {
  privateKey: KeyObject;
  /** base64 of the raw 32-byte public key, as CAREEN_AGENT_TRUSTED_KEYS takes it. */
  publicKeyBase64: string;
}

export function signingPair(): SigningPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return { privateKey, publicKeyBase64: der.subarray(der.length - 32).toString('base64') };
}

export function signPackage(bytes: Buffer, pair: SigningPair): string {
  return sign(null, bytes, pair.privateKey).toString('base64');
}
