import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPackage, signingPair, signPackage } from '../testing/agent-package.fixture';
import { PackageVerifier, VerificationError } from './package-verifier';

const sha256Of = (content: Buffer) => createHash('sha256').update(content).digest('hex');

describe('PackageVerifier', () => {
  const trusted = signingPair();
  const stranger = signingPair();
  let dir: string;
  let file: string;
  let bytes: Buffer;
  const described = (overrides: Partial<{ size: number; sha256: string; signature: string }> = {}) => ({
    version: '2.0.0',
    size: bytes.length,
    sha256: sha256Of(bytes),
    signature: signPackage(bytes, trusted),
    ...overrides,
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'careen-verify-'));
    bytes = await buildPackage({ version: '2.0.0' });
    file = join(dir, 'package.tar.gz');
    await writeFile(file, bytes);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('accepts a package whose size, sha256, signature and manifest all match', async () => {
    await expect(
      new PackageVerifier([trusted.publicKeyBase64]).verify(file, described()),
    ).resolves.toBeUndefined();
  });

  it.each([
    ['size', () => described({ size: 1 }), 'size is'],
    ['sha256', () => described({ sha256: '0'.repeat(64) }), 'sha256 is'],
    ['signer', () => described({ signature: signPackage(bytes, stranger) }), 'signature'],
  ])('refuses a package with the wrong %s', async (_what, pkg, message) => {
    const verifier = new PackageVerifier([trusted.publicKeyBase64]);
    await expect(verifier.verify(file, pkg())).rejects.toThrow(VerificationError);
    await expect(verifier.verify(file, pkg())).rejects.toThrow(message);
  });

  it('refuses an unsigned package when trusted keys are configured, and takes it when none are', async () => {
    const unsigned = { ...described(), signature: undefined };
    await expect(new PackageVerifier([trusted.publicKeyBase64]).verify(file, unsigned)).rejects.toThrow(
      'not signed',
    );
    await expect(new PackageVerifier([]).verify(file, unsigned)).resolves.toBeUndefined();
  });

  it('refuses a file that is not a gzipped tarball, though its size and sha256 match', async () => {
    const garbled = join(dir, 'garbled.tar.gz');
    const garbage = Buffer.from('not a package at all');
    await writeFile(garbled, garbage);
    const pkg = { version: '2.0.0', size: garbage.length, sha256: sha256Of(garbage) };
    await expect(new PackageVerifier([]).verify(garbled, pkg)).rejects.toThrow(
      new VerificationError('the package cannot be read: incorrect header check'),
    );
  });

  it('lets a file system error through as it came: the node could not read its copy, the package is not at fault', async () => {
    const verifying = new PackageVerifier([]).verify(join(dir, 'gone.tar.gz'), described());
    await expect(verifying).rejects.toMatchObject({ code: 'ENOENT', syscall: 'stat' });
    await expect(verifying).rejects.not.toBeInstanceOf(VerificationError);
  });

  it('refuses a package whose manifest names another version', async () => {
    await expect(new PackageVerifier([]).verify(file, { ...described(), version: '2.0.1' })).rejects.toThrow(
      'the manifest says version 2.0.0',
    );
  });
});
