/**
 * Password and node-token hashing with scrypt. Owns the stored format
 * `scrypt$N$r$p$<salt b64>$<hash b64>`; never stores or logs a secret in clear.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const SCHEME = 'scrypt';
const COST = 16384;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

// Bounds for parameters read back from storage, so a corrupt row cannot make verification
// allocate gigabytes or spin for minutes.
const MAX_COST = 2 ** 20;
const MAX_BLOCK_SIZE = 32;
const MAX_PARALLELISM = 16;
const MIN_KEY_BYTES = 16;
const MAX_KEY_BYTES = 64;
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

interface ScryptParams {
  cost: number;
  blockSize: number;
  parallelism: number;
}

function deriveKey(secret: string, salt: Buffer, keyBytes: number, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = {
    N: params.cost,
    r: params.blockSize,
    p: params.parallelism,
    // Node refuses anything above 32 MiB by default; allow what these parameters need.
    maxmem: 256 * params.cost * params.blockSize,
  };
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyBytes, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const params = { cost: COST, blockSize: BLOCK_SIZE, parallelism: PARALLELISM };
  const key = await deriveKey(secret, salt, KEY_BYTES, params);
  return [SCHEME, COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), key.toString('base64')].join('$');
}

// A missing field is no integer: the callers pass fields of a split that may be short.
function parseInteger(text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined || !/^[0-9]{1,8}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

interface ParsedHash extends ScryptParams {
  salt: Buffer;
  key: Buffer;
}

function isBase64(text: string | undefined): text is string {
  return text !== undefined && BASE64.test(text);
}

function parseEncoded(encoded: string): ParsedHash | undefined {
  const fields = encoded.split('$');
  if (fields.length !== 6) return undefined;
  const [scheme, costText, blockSizeText, parallelismText, saltText, keyText] = fields;
  if (scheme !== SCHEME) return undefined;
  const cost = parseInteger(costText, 2, MAX_COST);
  const blockSize = parseInteger(blockSizeText, 1, MAX_BLOCK_SIZE);
  const parallelism = parseInteger(parallelismText, 1, MAX_PARALLELISM);
  if (cost === undefined || blockSize === undefined || parallelism === undefined) return undefined;
  if ((cost & (cost - 1)) !== 0 || 128 * cost * blockSize > MAX_MEMORY_BYTES) return undefined;
  if (!isBase64(saltText) || !isBase64(keyText)) return undefined;
  const salt = Buffer.from(saltText, 'base64');
  const key = Buffer.from(keyText, 'base64');
  if (salt.length === 0 || key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) return undefined;
  return { cost, blockSize, parallelism, salt, key };
}

/** True when the secret matches; false for a wrong secret and for any malformed encoding. */
export async function verifySecret(secret: string, encoded: string): Promise<boolean> {
  if (typeof secret !== 'string' || typeof encoded !== 'string') return false;
  const parsed = parseEncoded(encoded);
  if (!parsed) return false;
  try {
    const candidate = await deriveKey(secret, parsed.salt, parsed.key.length, parsed);
    return timingSafeEqual(candidate, parsed.key);
  } catch {
    return false;
  }
}

/** A URL-safe random secret (node tokens, generated passwords): `bytes` of entropy, base64url. */
export function generateSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
