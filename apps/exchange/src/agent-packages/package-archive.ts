/**
 * What makes a .tar.gz an agent package: a `package.json` manifest at its root with a semver
 * `version`, and nothing else at the top but the `packages/`, `ssl/` and `config/` folders.
 * Reads the archive as a stream and keeps only the manifest in memory; never extracts to disk.
 */
import { type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { DomainError } from '@careen/contracts';
import semver from 'semver';
import { extract, type Extract, type Header } from 'tar-stream';
import {
  manifestInvalid,
  manifestMissing,
  notTar,
  truncatedGzip,
  unexpectedEntry,
  unsafeEntry,
} from './agent-packages.errors';

export const MANIFEST_NAME = 'package.json';
export const PACKAGE_FOLDERS = ['packages', 'ssl', 'config'] as const;
const MANIFEST_MAX_BYTES = 64 * 1024;
const OPTIONAL_VERSION_FIELDS = ['packagesVersion', 'sslVersion', 'configVersion'] as const;

export interface AgentPackageManifest {
  version: string;
  packagesVersion?: string;
  sslVersion?: string;
  configVersion?: string;
}

/** Checks the gzipped tar read from `archive` and answers its manifest. */
export async function inspectAgentPackage(archive: Readable): Promise<AgentPackageManifest> {
  const entries = extract();
  const feeding = pipeline(archive, createGunzip(), entries);
  // Observed below; a rejection here must not go unhandled while the entries are read.
  feeding.catch(() => undefined);
  let manifest: AgentPackageManifest;
  try {
    manifest = await readManifest(entries);
  } catch (error) {
    entries.destroy();
    archive.destroy();
    throw archiveError(error);
  }
  await feeding.catch((error: unknown) => {
    throw archiveError(error);
  });
  return manifest;
}

async function readManifest(entries: Extract): Promise<AgentPackageManifest> {
  let manifestText: string | undefined;
  let nestedManifest: string | undefined;
  for await (const entry of entries) {
    const path = checkEntry(entry.header);
    if (path === MANIFEST_NAME) {
      if (manifestText !== undefined) throw manifestInvalid(`the package holds ${MANIFEST_NAME} twice`);
      manifestText = await readSmallText(entry, MANIFEST_MAX_BYTES);
      continue;
    }
    if (path?.endsWith(`/${MANIFEST_NAME}`)) nestedManifest ??= path;
    entry.resume();
  }
  if (manifestText === undefined) {
    throw manifestMissing(
      nestedManifest
        ? `the package has no ${MANIFEST_NAME} at its root (found ${nestedManifest}; the manifest must not be nested)`
        : `the package has no ${MANIFEST_NAME} manifest at its root`,
    );
  }
  return parseManifest(manifestText);
}

/** Answers the entry's normalized path, or undefined for the root folder itself. */
export function checkEntry(header: Pick<Header, 'name' | 'type'>): string | undefined {
  const raw = header.name;
  if (raw.startsWith('/')) throw unsafeEntry(raw, `entry "${raw}" has an absolute path`);
  if (raw.includes('\0') || raw.includes('\\'))
    throw unsafeEntry(raw, `entry "${raw}" has a NUL or backslash in its path`);
  const segments = raw.split('/').filter((segment: string) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw unsafeEntry(raw, `entry "${raw}" climbs out of the package with ".."`);
  const type = header.type ?? 'file';
  const isFile = type === 'file' || type === 'contiguous-file';
  if (!isFile && type !== 'directory') {
    throw unsafeEntry(raw, `entry "${raw}" is a ${type}; a package holds only files and folders`);
  }
  const [top] = segments;
  if (top === undefined) {
    if (isFile) throw unexpectedEntry(raw, `entry "${raw}" is a file without a name`);
    return undefined;
  }
  if (segments.length === 1 && top === MANIFEST_NAME) {
    if (!isFile) throw unexpectedEntry(raw, `"${MANIFEST_NAME}" at the package root must be a file`);
    return MANIFEST_NAME;
  }
  if (!(PACKAGE_FOLDERS as readonly string[]).includes(top)) {
    throw unexpectedEntry(
      raw,
      `unexpected top-level entry "${top}": a package holds only ${MANIFEST_NAME} and the folders ${PACKAGE_FOLDERS.map((folder) => `${folder}/`).join(', ')}`,
    );
  }
  if (segments.length === 1 && isFile) {
    throw unexpectedEntry(raw, `top-level entry "${top}" must be a folder, not a file`);
  }
  return segments.join('/');
}

export function parseManifest(text: string): AgentPackageManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw manifestInvalid(`${MANIFEST_NAME} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw manifestInvalid(`${MANIFEST_NAME} must hold a JSON object`);
  }
  const fields = parsed as Record<string, unknown>;
  const problems: { field: string; problems: string[] }[] = [];
  const version = fields.version;
  if (typeof version !== 'string') {
    problems.push({ field: 'version', problems: ['version is required and must be a string'] });
  } else if (canonicalSemver(version) !== version) {
    problems.push({
      field: 'version',
      problems: [`version "${version}" is not a semantic version such as 1.0.2`],
    });
  }
  const manifest: Record<string, string> = {};
  for (const field of OPTIONAL_VERSION_FIELDS) {
    const value = fields[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') problems.push({ field, problems: [`${field} must be a string`] });
    else manifest[field] = value;
  }
  if (problems.length > 0) {
    const summary = problems.map((problem) => `${problem.field}: ${problem.problems.join(', ')}`).join('; ');
    throw manifestInvalid(`invalid ${MANIFEST_NAME}: ${summary}`, problems);
  }
  return { version: version as string, ...manifest };
}

/** The version as semver spells it, build metadata included; null when it is not one. */
function canonicalSemver(version: string): string | null {
  const parsed = semver.parse(version);
  if (!parsed) return null;
  return parsed.build.length > 0 ? `${parsed.version}+${parsed.build.join('.')}` : parsed.version;
}

async function readSmallText(entry: AsyncIterable<unknown>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of entry) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) throw manifestInvalid(`${MANIFEST_NAME} exceeds ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Names what is wrong with the archive: our own rule, the gzip layer, or the tar layer. */
function archiveError(error: unknown): Error {
  if (error instanceof DomainError) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  if (typeof code === 'string' && code.startsWith('Z_')) return truncatedGzip(text);
  return notTar(text);
}
