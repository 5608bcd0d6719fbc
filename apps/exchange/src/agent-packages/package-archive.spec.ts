import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { DomainError } from '@careen/contracts';
import { agentPackage, packageOf, tarOf } from './agent-package.fixtures';
import { AgentPackageErrorCode } from './agent-packages.errors';
import { inspectAgentPackage, parseManifest } from './package-archive';

const inspect = (bytes: Buffer) => inspectAgentPackage(Readable.from([bytes]));

async function rejection(bytes: Buffer): Promise<DomainError> {
  const error: unknown = await inspect(bytes).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return error;
}

const manifest = (fields: Record<string, unknown>) => ({
  name: 'package.json',
  content: JSON.stringify(fields),
});

describe('agent package archives', () => {
  it('answers the manifest of a well-formed package', async () => {
    await expect(inspect(await agentPackage('1.2.3', { sslVersion: '2.0.0' }))).resolves.toEqual({
      version: '1.2.3',
      packagesVersion: '1.2.3',
      sslVersion: '2.0.0',
    });
  });

  it('accepts a package holding only its manifest, with "./" prefixed names', async () => {
    const bytes = await packageOf([
      { name: './' },
      { name: './package.json', content: '{"version":"0.1.0"}' },
    ]);
    await expect(inspect(bytes)).resolves.toEqual({ version: '0.1.0' });
  });

  it('names a truncated gzip stream', async () => {
    const whole = await agentPackage('1.0.0', {}, 'x'.repeat(5000));
    const error = await rejection(whole.subarray(0, Math.floor(whole.length / 2)));
    expect(error.code).toBe(AgentPackageErrorCode.TruncatedGzip);
    expect(error.message).toContain('truncated');
  });

  it('refuses gzip data that is not a tar archive', async () => {
    const error = await rejection(
      gzipSync(Buffer.from('just some text, certainly not a tar archive\n'.repeat(40))),
    );
    expect(error.code).toBe(AgentPackageErrorCode.NotTar);
  });

  it('refuses a package without a manifest', async () => {
    const error = await rejection(
      await packageOf([{ name: 'packages/' }, { name: 'packages/a.deb', content: 'a' }]),
    );
    expect(error.code).toBe(AgentPackageErrorCode.ManifestMissing);
  });

  it('refuses a manifest that is only nested, naming where it was found', async () => {
    const error = await rejection(
      await packageOf([{ name: 'config/' }, { name: 'config/package.json', content: '{"version":"1.0.0"}' }]),
    );
    expect(error.code).toBe(AgentPackageErrorCode.ManifestMissing);
    expect(error.message).toContain('config/package.json');
  });

  it('refuses an unexpected top-level entry, naming it', async () => {
    const error = await rejection(
      await packageOf([
        manifest({ version: '1.0.0' }),
        { name: 'bin/' },
        { name: 'bin/agent', content: '#!' },
      ]),
    );
    expect(error.code).toBe(AgentPackageErrorCode.UnexpectedEntry);
    expect(error.message).toContain('"bin"');
  });

  it('refuses a top-level file other than the manifest', async () => {
    const error = await rejection(
      await packageOf([manifest({ version: '1.0.0' }), { name: 'README', content: 'hi' }]),
    );
    expect(error.message).toContain('"README"');
  });

  it.each([
    ['a ".." entry', 'packages/../../etc/passwd'],
    ['an absolute path', '/etc/passwd'],
  ])('refuses %s', async (_what, name) => {
    const error = await rejection(await packageOf([manifest({ version: '1.0.0' }), { name, content: 'x' }]));
    expect(error.code).toBe(AgentPackageErrorCode.UnsafeEntry);
    expect(error.message).toContain(name);
  });

  it('refuses symbolic links', async () => {
    const error = await rejection(
      await packageOf([
        manifest({ version: '1.0.0' }),
        { name: 'packages/' },
        { name: 'packages/passwd', type: 'symlink', linkname: '/etc/passwd' },
      ]),
    );
    expect(error.code).toBe(AgentPackageErrorCode.UnsafeEntry);
  });

  it('refuses two manifests at the root', async () => {
    const error = await rejection(
      await packageOf([manifest({ version: '1.0.0' }), manifest({ version: '2.0.0' })]),
    );
    expect(error.code).toBe(AgentPackageErrorCode.ManifestInvalid);
  });

  it('reads a tar whose entries end without the closing blocks of a complete archive', async () => {
    const tar = await tarOf([manifest({ version: '1.0.0' })]);
    await expect(inspect(gzipSync(tar.subarray(0, 1024)))).resolves.toEqual({ version: '1.0.0' });
  });
});

describe('agent package manifests', () => {
  it.each(['1.0', 'v1.0.0', '1.0.0.0', 'latest', ' 1.0.0'])('refuses the version "%s"', (version) => {
    expect(() => parseManifest(JSON.stringify({ version }))).toThrow(/not a semantic version/);
  });

  it('accepts prerelease and build metadata versions', () => {
    expect(parseManifest('{"version":"2.0.0-rc.1+build.7"}')).toEqual({ version: '2.0.0-rc.1+build.7' });
  });

  it('names every bad field at once', () => {
    try {
      parseManifest(JSON.stringify({ sslVersion: 3, configVersion: '1' }));
      throw new Error('accepted');
    } catch (error) {
      expect((error as DomainError).details).toMatchObject({
        fields: [{ field: 'version' }, { field: 'sslVersion' }],
      });
    }
  });

  it('refuses JSON that is not an object, and text that is not JSON', () => {
    expect(() => parseManifest('["1.0.0"]')).toThrow(/JSON object/);
    expect(() => parseManifest('version: 1.0.0')).toThrow(/not valid JSON/);
  });

  it('keeps only the manifest fields it knows', () => {
    expect(parseManifest('{"version":"1.0.0","extra":{"a":1}}')).toEqual({ version: '1.0.0' });
  });
});
