/** Builds and reads the CloudEvents binary-mode headers carried by every Careen message. */
import {
  CE_HEADERS,
  CE_SPEC_VERSION,
  CONTENT_TYPE_HEADER,
  JSON_CONTENT_TYPE,
  type CloudEventAttributes,
} from '@careen/contracts';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';

export function cloudEventHeaders(
  attributes: CloudEventAttributes,
  extra: Record<string, string> = {},
): MsgHdrs {
  const h = natsHeaders();
  for (const [key, value] of Object.entries(extra)) h.set(key, value);
  h.set(CE_HEADERS.specversion, CE_SPEC_VERSION);
  h.set(CE_HEADERS.id, attributes.id);
  h.set(CE_HEADERS.type, attributes.type);
  h.set(CE_HEADERS.source, attributes.source);
  h.set(CE_HEADERS.time, attributes.time);
  if (attributes.subject) h.set(CE_HEADERS.subject, attributes.subject);
  h.set(CONTENT_TYPE_HEADER, JSON_CONTENT_TYPE);
  return h;
}

/**
 * A received message's headers as a plain lookup, read in one pass: nats.js header look-ups
 * scan every key on each call, which shows on a consumer's hot path.
 */
export function headerLookup(h: MsgHdrs | undefined): Map<string, string> {
  const lookup = new Map<string, string>();
  for (const [key, values] of h ?? []) lookup.set(key, values[0] ?? '');
  return lookup;
}

/** The CloudEvent attributes of a received message, or what is wrong with its headers. */
export function readCloudEventAttributes(h: Map<string, string>): CloudEventAttributes | { problem: string } {
  const get = (key: string) => h.get(key) ?? '';
  for (const key of [
    CE_HEADERS.specversion,
    CE_HEADERS.id,
    CE_HEADERS.type,
    CE_HEADERS.source,
    CE_HEADERS.time,
  ]) {
    if (!get(key)) return { problem: `missing CloudEvents header ${key}` };
  }
  if (get(CE_HEADERS.specversion) !== CE_SPEC_VERSION)
    return { problem: `missing CloudEvents header ${CE_HEADERS.specversion} ${CE_SPEC_VERSION}` };
  // Absent on messages written before it was set: JSON is the only kind there is.
  const contentType = get(CONTENT_TYPE_HEADER);
  const [mediaType = ''] = contentType.split(';');
  if (contentType && mediaType.trim().toLowerCase() !== JSON_CONTENT_TYPE)
    return {
      problem: `unsupported ${CONTENT_TYPE_HEADER} "${contentType}": the body must be ${JSON_CONTENT_TYPE}`,
    };
  const subject = get(CE_HEADERS.subject);
  return {
    id: get(CE_HEADERS.id),
    type: get(CE_HEADERS.type),
    source: get(CE_HEADERS.source),
    time: get(CE_HEADERS.time),
    ...(subject ? { subject } : {}),
  };
}
