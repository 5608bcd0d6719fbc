/** The optional detached ed25519 signature sent with an upload: base64 of 64 raw bytes. */
import { signatureInvalid } from './agent-packages.errors';

export const SIGNATURE_HEADER = 'x-careen-signature';
const ED25519_SIGNATURE_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function parseSignatureHeader(value: string | string[] | undefined): Buffer | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw signatureInvalid(`send one ${SIGNATURE_HEADER} header`);
  const text = value.trim();
  if (!BASE64.test(text) || text.replace(/=+$/, '').length % 4 === 1) {
    throw signatureInvalid(`${SIGNATURE_HEADER} must be base64`);
  }
  const signature = Buffer.from(text, 'base64');
  if (signature.length !== ED25519_SIGNATURE_BYTES) {
    throw signatureInvalid(
      `${SIGNATURE_HEADER} must carry a ${ED25519_SIGNATURE_BYTES}-byte ed25519 signature, not ${signature.length} bytes`,
    );
  }
  return signature;
}
