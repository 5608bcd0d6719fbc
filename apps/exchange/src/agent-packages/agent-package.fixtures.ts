/** Builds agent packages, good and bad, for the specs of this folder. */
import { gzipSync } from 'node:zlib';
import { pack, type Header } from 'tar-stream';

export interface FixtureEntry {
  name: string;
  content?: string | Buffer;
  type?: Header['type'];
  linkname?: string;
}

export async function tarOf(entries: FixtureEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const collected = new Promise<Buffer>((resolve, reject) => {
    archive.on('data', (chunk) => chunks.push(chunk as Buffer));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
  for (const entry of entries) {
    const type = entry.type ?? (entry.content === undefined ? 'directory' : 'file');
    const content = entry.content ?? '';
    const header = {
      name: entry.name,
      type,
      mode: type === 'directory' ? 0o755 : 0o644,
      linkname: entry.linkname,
    };
    await new Promise<void>((resolve, reject) =>
      archive.entry(header, type === 'file' ? content : '', (error) => (error ? reject(error) : resolve())),
    );
  }
  archive.finalize();
  return collected;
}

export async function packageOf(entries: FixtureEntry[]): Promise<Buffer> {
  return gzipSync(await tarOf(entries));
}

/** A well-formed package of the given version, with some content in each folder. */
export function agentPackage(
  version: string,
  extra: Record<string, unknown> = {},
  payload = '',
): Promise<Buffer> {
  return packageOf([
    { name: 'package.json', content: JSON.stringify({ version, packagesVersion: version, ...extra }) },
    { name: 'packages/' },
    { name: 'packages/careen-agent.deb', content: `agent ${version} ${payload}` },
    { name: 'ssl/' },
    { name: 'ssl/hub.crt', content: '-----BEGIN CERTIFICATE-----\n' },
    { name: 'config/' },
    { name: 'config/agent.env', content: 'CAREEN_EXCHANGE_URL=https://hub.example\n' },
  ]);
}
