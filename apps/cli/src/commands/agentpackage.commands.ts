/**
 * `careen agentpackage new|publish|list|show|remove`: the agent packages (.tar.gz) that management
 * policies roll out. A package holds a `package.json` manifest at its root and nothing else at
 * the top but the `packages/`, `ssl/` and `config/` folders.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { pack, type Pack } from 'tar-stream';
import { CliError } from '../cli-errors';
import { type Column } from '../output/output';
import { type CliServices, contextOf } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';

const PACKAGE_COLUMNS: readonly Column<Exchange.components['schemas']['AgentPackageResponse']>[] = [
  { header: 'VERSION', value: (item) => item.version },
  { header: 'SIZE', value: (item) => item.size },
  { header: 'SIGNED', value: (item) => item.signature !== undefined },
  { header: 'SHA256', value: (item) => item.sha256 },
  { header: 'UPLOADED BY', value: (item) => item.uploadedBy },
  { header: 'UPLOADED', value: (item) => item.uploadedAt },
];

export const MANIFEST_NAME = 'package.json';
export const PACKAGE_FOLDERS = ['packages', 'ssl', 'config'];
const ED25519_SIGNATURE_BYTES = 64;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

export function registerAgentPackageCommands(program: Command, services: CliServices): void {
  const agentpackage = program.command('agentpackage').description('manage agent packages');

  agentpackage
    .command('new')
    .description('build an agent package (.tar.gz) from a folder holding packages/, ssl/ and config/')
    .argument('<dir>', 'the folder')
    // Not --version: that is the version of careen itself, wherever it appears.
    .requiredOption('--package-version <version>', 'the semantic version of the package, e.g. 1.0.2')
    .option('--out <file>', 'where to write it (default: careen-agent-<version>.tar.gz)')
    .action(async (dir: string, options: { packageVersion: string; out?: string }, command: Command) => {
      const context = contextOf(command, services);
      if (!SEMVER.test(options.packageVersion))
        throw new CliError(
          `--package-version must be a semantic version such as 1.0.2, not "${options.packageVersion}"`,
        );
      const out = options.out ?? `careen-agent-${options.packageVersion}.tar.gz`;
      const manifest = await buildAgentPackage(dir, options.packageVersion, out);
      context.printer.result(
        { file: out, manifest },
        `wrote agent package ${options.packageVersion} to ${out}`,
      );
    });

  agentpackage
    .command('publish')
    .description('upload an agent package (hub admins only)')
    .argument('<file>', 'the .tar.gz')
    .option('--signature-file <file>', 'its ed25519 signature: 64 bytes, or their base64')
    .action(async (file: string, options: { signatureFile?: string }, command: Command) => {
      const context = contextOf(command, services);
      const size = await sizeOf(file);
      const signature = options.signatureFile ? await readSignature(options.signatureFile) : undefined;
      const exchange = await context.exchange();
      context.printer.record(
        await exchange((api) =>
          api.POST('/v1/agent-packages', {
            params: { header: { 'x-careen-signature': signature } },
            headers: { 'content-type': 'application/gzip', 'content-length': String(size) },
            // The file is streamed, not read whole: the document types a binary body as a string.
            body: Readable.toWeb(createReadStream(file)) as unknown as string,
            bodySerializer: (body) => body,
            // What fetch needs to send a stream; and fetch keeps a copy of a body it may follow a
            // redirect with, so none is followed.
            duplex: 'half',
            redirect: 'error',
          }),
        ),
      );
    });

  agentpackage
    .command('list')
    .description('list the agent packages')
    .action(async (_options: object, command: Command) => {
      const context = contextOf(command, services);
      const exchange = await context.exchange();
      const answer = await exchange((api) => api.GET('/v1/agent-packages'));
      context.printer.list(answer, PACKAGE_COLUMNS, 'no agent packages');
    });

  agentpackage
    .command('show')
    .description('show an agent package')
    .argument('<version>', 'its version')
    .action(async (version: string, _options: object, command: Command) => {
      const context = contextOf(command, services);
      const exchange = await context.exchange();
      context.printer.record(
        await exchange((api) => api.GET('/v1/agent-packages/{version}', { params: { path: { version } } })),
      );
    });

  agentpackage
    .command('remove')
    .description('remove an agent package (hub admins; refused while an enabled policy names that version)')
    .argument('<version>', 'its version')
    .option(...YES_OPTION)
    .action(async (version: string, options: { yes?: boolean }, command: Command) => {
      const context = contextOf(command, services);
      const exchange = await context.exchange();
      await removeAfterConfirmation(context, `agent package ${version}`, options.yes, () =>
        exchange((api) => api.DELETE('/v1/agent-packages/{version}', { params: { path: { version } } })),
      );
    });
}

async function sizeOf(file: string): Promise<number> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`${file} is not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The base64 of the signature, whether the file holds the raw bytes or their base64. */
export async function readSignature(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (bytes.length === ED25519_SIGNATURE_BYTES) return bytes.toString('base64');
  const text = bytes.toString('utf8').trim();
  if (Buffer.from(text, 'base64').length !== ED25519_SIGNATURE_BYTES)
    throw new CliError(`${file} must hold an ed25519 signature: 64 bytes, or their base64`);
  return text;
}

/**
 * Writes `dir` as a gzipped tar to `out`, with a `package.json` manifest at its root: the
 * folder's own package.json (if any) with its version set to `version`.
 */
export async function buildAgentPackage(
  dir: string,
  version: string,
  out: string,
): Promise<Record<string, unknown>> {
  let top: string[];
  try {
    if (!(await stat(dir)).isDirectory()) throw new CliError(`${dir} is not a folder`);
    top = (await readdir(dir)).sort();
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${dir}: ${(error as Error).message}`);
  }
  const unexpected = top.filter((name) => name !== MANIFEST_NAME && !PACKAGE_FOLDERS.includes(name));
  if (unexpected.length > 0) {
    throw new CliError(
      `${dir} may hold only ${MANIFEST_NAME} and the folders ${PACKAGE_FOLDERS.join(', ')}; ` +
        `found ${unexpected.join(', ')}`,
    );
  }
  let manifest: Record<string, unknown> = {};
  if (top.includes(MANIFEST_NAME)) {
    const where = join(dir, MANIFEST_NAME);
    try {
      manifest = JSON.parse(await readFile(where, 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new CliError(`${where} is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
      throw new CliError(`${where} must hold a JSON object`);
  }
  manifest = { ...manifest, version };

  const archive = pack();
  const written = pipeline(archive, createGzip(), createWriteStream(out));
  try {
    await addEntry(
      archive,
      { name: MANIFEST_NAME, type: 'file', mode: 0o644 },
      JSON.stringify(manifest, null, 2),
    );
    for (const folder of top.filter((name) => name !== MANIFEST_NAME)) {
      await addTree(archive, dir, folder);
    }
    archive.finalize();
  } catch (error) {
    archive.destroy(error as Error);
    await written.catch(() => undefined);
    throw error;
  }
  try {
    await written;
  } catch (error) {
    throw new CliError(`cannot write ${out}: ${(error as Error).message}`);
  }
  return manifest;
}

/** A folder and everything in it; only files and folders (no links, devices …). */
async function addTree(archive: Pack, root: string, relative: string): Promise<void> {
  const where = join(root, relative);
  const info = await lstat(where);
  if (info.isDirectory()) {
    await addEntry(archive, { name: `${relative}/`, type: 'directory', mode: 0o755 });
    for (const name of (await readdir(where)).sort()) await addTree(archive, root, `${relative}/${name}`);
  } else if (info.isFile()) {
    await addEntry(
      archive,
      { name: relative, type: 'file', mode: info.mode & 0o111 ? 0o755 : 0o644 },
      await readFile(where),
    );
  } else {
    throw new CliError(`${where} is neither a file nor a folder; a package holds only files and folders`);
  }
}

function addEntry(
  archive: Pack,
  header: { name: string; type: 'file' | 'directory'; mode: number },
  content: string | Buffer = '',
): Promise<void> {
  return new Promise((resolve, reject) =>
    archive.entry(header, content, (error) => (error ? reject(error) : resolve())),
  );
}
