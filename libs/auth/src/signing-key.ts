/**
 * ES256 signing keys for access tokens and the public key set other services verify with.
 * Only the exchange holds private keys; toJwks must never let a private member out.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JSONWebKeySet, type JWK } from 'jose';

export const SIGNING_ALGORITHM = 'ES256';

export interface SigningKeyMaterial {
  /** RFC 7638 thumbprint of the public key; the `kid` of every token it signs. */
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function generateSigningKey(): Promise<SigningKeyMaterial> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const publicParts = await exportJWK(publicKey);
  const privateParts = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicParts, 'sha256');
  const labels = { kid, alg: SIGNING_ALGORITHM, use: 'sig' };
  return {
    kid,
    privateJwk: { ...privateParts, ...labels },
    publicJwk: { ...publicParts, ...labels },
  };
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'] as const;

function publicOnly(jwk: JWK): JWK {
  const copy: JWK = { ...jwk };
  for (const member of PRIVATE_MEMBERS) delete copy[member];
  return copy;
}

/** The key set served at GET /v1/auth/jwks. */
export function toJwks(keys: readonly SigningKeyMaterial[]): JSONWebKeySet {
  return { keys: keys.map((key) => publicOnly(key.publicJwk)) };
}
