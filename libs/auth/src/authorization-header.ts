/**
 * Reads the Authorization header: `Bearer <jwt>`, or `Basic base64(org/id:secret)` after Open
 * Horizon's convention (id is a username or a node id; the secret may itself contain ':').
 * It only parses; checking the credentials is someone else's job.
 */
import { AuthenticationError, AuthErrorCode } from './auth.errors';

export interface BearerCredentials {
  scheme: 'bearer';
  token: string;
}

export interface BasicCredentials {
  scheme: 'basic';
  org: string;
  id: string;
  secret: string;
}

export type Credentials = BearerCredentials | BasicCredentials;

// RFC 6750 b64token, which covers compact JWTs.
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASIC_FORMAT = 'basic credentials must be org/id:secret';

function malformed(message: string): AuthenticationError {
  return new AuthenticationError(AuthErrorCode.MalformedCredentials, message);
}

function parseBasic(encoded: string): BasicCredentials {
  if (!BASE64.test(encoded)) throw malformed('basic credentials must be base64 encoded');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw malformed(BASIC_FORMAT);
  const user = decoded.slice(0, colon);
  const secret = decoded.slice(colon + 1);
  const [org, id, ...more] = user.split('/');
  if (!org || !id || more.length > 0 || secret.length === 0) throw malformed(BASIC_FORMAT);
  return { scheme: 'basic', org, id, secret };
}

/** The credentials in the header; undefined when there is none; AuthenticationError when malformed. */
export function parseAuthorizationHeader(value: string | undefined): Credentials | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed.length === 0) throw malformed('authorization header is empty');
  const match = /^(\S+)(?:\s+(.*))?$/.exec(trimmed);
  const scheme = match?.[1] ?? '';
  const rest = (match?.[2] ?? '').trim();
  switch (scheme.toLowerCase()) {
    case 'bearer':
      if (!BEARER_TOKEN.test(rest)) throw malformed('bearer credentials must be a single token');
      return { scheme: 'bearer', token: rest };
    case 'basic':
      return parseBasic(rest);
    default:
      throw malformed(
        `unsupported authorization scheme ${JSON.stringify(scheme.slice(0, 32))}; use Bearer or Basic`,
      );
  }
}
