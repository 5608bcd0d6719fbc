/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the sender signs
 * `<webhook-id>.<webhook-timestamp>.<body>` with HMAC-SHA256 under the subscription's secret
 * (`whsec_<base64>`) and sends `webhook-signature: v1,<base64>` (several, space-separated,
 * while a secret is being rotated). A receiver checks one matches and the timestamp is recent.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a delivery's timestamp may be from now, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Why the delivery's signature is not good, or undefined when it is. */
export function webhookSignatureProblem(
  secret: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: string,
  now: Date = new Date(),
): string | undefined {
  if (!headers.id || !headers.timestamp || !headers.signature)
    return 'webhook-id, webhook-timestamp and webhook-signature are required';
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp)) return 'webhook-timestamp is not a whole number of seconds';
  if (Math.abs(now.getTime() / 1000 - timestamp) > SIGNATURE_TOLERANCE_SECONDS)
    return `webhook-timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} s away from now`;
  const expected = Buffer.from(signWebhook(secret, headers.id, timestamp, body));
  const matches = headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? undefined : 'no webhook-signature matches the secret';
}
