/**
 * Checks a downloaded package before anything of it is used: its size and sha256 against the
 * exchange's record, its ed25519 signature against the configured trusted keys (when any are
 * configured, an unsigned package is refused), and that its manifest names the version expected.
 * Only a fault of the package is a VerificationError; when the node cannot read its own copy (out
 * of file handles, a disk error), the file system's error leaves as it came, and says nothing
 * about the package.
 */
import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract } from 'tar-stream';
import { type AgentPackage } from '../exchange/exchange.types';

export class VerificationError extends Error {}

export class PackageVerifier {
  private readonly keys: KeyObject[];

  /** `trustedKeys`: ed25519 public keys as PEM, or base64 of the 32 raw bytes. */
  constructor(trustedKeys: readonly string[]) {
    this.keys = trustedKeys.map(parsePublicKey);
  }

  async verify(file: string, pkg: AgentPackage): Promise<void> {
    const size = (await stat(file)).size;
    if (size !== pkg.size)
      throw new VerificationError(`size is ${size} bytes, the exchange says ${pkg.size}`);
    const hash = createHash('sha256');
    await pipeline(createReadStream(file), hash);
    const sha256 = hash.digest('hex');
    if (sha256 !== pkg.sha256)
      throw new VerificationError(`sha256 is ${sha256}, the exchange says ${pkg.sha256}`);
    if (this.keys.length > 0) {
      if (!pkg.signature)
        throw new VerificationError('the package is not signed and trusted keys are configured');
      const body = await readFile(file);
      const signature = Buffer.from(pkg.signature, 'base64');
      if (!this.keys.some((key) => verify(null, body, key, signature))) {
        throw new VerificationError('the signature does not match any trusted key');
      }
    }
    const manifestVersion = await readManifestVersion(file);
    if (manifestVersion !== pkg.version) {
      throw new VerificationError(`the manifest says version ${manifestVersion}, expected ${pkg.version}`);
    }
  }
}

function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return createPublicKey(trimmed);
  const raw = Buffer.from(trimmed, 'base64');
  if (raw.length !== 32) throw new Error('a trusted key must be PEM or base64 of 32 raw ed25519 bytes');
  // SubjectPublicKeyInfo for ed25519 is a fixed 12-byte prefix and the 32 raw bytes.
  const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]);
  return createPublicKey({ key: der, format: 'der', type: 'spki' });
}

async function readManifestVersion(file: string): Promise<string | undefined> {
  const entries = extract();
  const feeding = pipeline(createReadStream(file), createGunzip(), entries);
  feeding.catch(() => undefined);
  let version: string | undefined;
  try {
    for await (const entry of entries) {
      const name = entry.header.name.replace(/^\.\//, '');
      if (name !== 'package.json') {
        entry.resume();
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      version = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { version?: string }).version;
    }
    await feeding;
  } catch (error) {
    if (isFileSystemError(error)) throw error;
    throw new VerificationError(`the package cannot be read: ${(error as Error).message}`);
  }
  return version;
}

/** An error of a system call (open, read), as Node's file system raises them: the node's, not the package's. */
function isFileSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | undefined)?.syscall === 'string';
}
