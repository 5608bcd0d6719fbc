/** An agent package holding only its manifest: enough for simulated agents to be at that version. */
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

export async function simulatedAgentPackage(version: string): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    archive.on('data', (chunk) => void chunks.push(chunk as Buffer));
    archive.on('end', () => resolve(Buffer.concat(chunks)));
    archive.on('error', reject);
  });
  archive.entry({ name: 'package.json' }, JSON.stringify({ version }));
  archive.finalize();
  return gzipSync(await done);
}
