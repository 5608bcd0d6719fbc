/**
 * Turns a received message into a validated payload, or into the reason it cannot be
 * handled. Nothing reaches a handler without passing here. A payload class with a compiled
 * check (the exchange's changes, a slot's releases) is judged by it first; class-validator
 * judges what that check does not take, and names what is wrong.
 */
import {
  checkCompiled,
  describeValidationErrors,
  type CloudEventAttributes,
  type PayloadClass,
} from '@careen/contracts';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { readCloudEventAttributes } from './cloud-event-headers';

const UTF8 = new TextDecoder();

export type Decoded<P> =
  { ok: true; payload: P; attributes: CloudEventAttributes } | { ok: false; reason: string };

export function decodeMessage<P extends object>(
  payloadClass: PayloadClass<P>,
  expectedType: string,
  data: Uint8Array,
  headers: Map<string, string>,
): Decoded<P> {
  const attributes = readCloudEventAttributes(headers);
  if ('problem' in attributes) return { ok: false, reason: attributes.problem };
  if (attributes.type !== expectedType) {
    return { ok: false, reason: `unexpected ce-type "${attributes.type}", expected "${expectedType}"` };
  }
  let body: unknown;
  try {
    body = JSON.parse(UTF8.decode(data));
  } catch (error) {
    return { ok: false, reason: `malformed JSON body: ${(error as Error).message}` };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, reason: 'payload must be a JSON object' };
  }
  const validated = validatePayload(payloadClass, body);
  return validated.ok ? { ...validated, attributes } : validated;
}

/**
 * The payload made of a message's JSON object, or why it is refused; `compiledChecks: false`
 * leaves it to class-validator alone.
 */
export function validatePayload<P extends object>(
  payloadClass: PayloadClass<P>,
  body: object,
  { compiledChecks = true } = {},
): { ok: true; payload: P } | { ok: false; reason: string } {
  const checked = compiledChecks ? (checkCompiled(payloadClass, 'body', body) as P | undefined) : undefined;
  if (checked) return { ok: true, payload: checked };
  let payload: P;
  let errors;
  try {
    payload = plainToInstance(payloadClass, body);
    // Payload classes use no async validators; validating synchronously keeps the hot path off the microtask queue.
    errors = validateSync(payload, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
    });
  } catch (error) {
    // class-transformer throws on an object with a field named `constructor`, at any depth.
    return { ok: false, reason: `invalid payload: ${(error as Error).message}` };
  }
  if (errors.length > 0) return { ok: false, reason: `invalid payload: ${describeValidationErrors(errors)}` };
  return { ok: true, payload };
}
