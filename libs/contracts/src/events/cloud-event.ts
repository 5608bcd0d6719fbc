/** CloudEvents 1.0 binary mode over NATS: the attributes travel as `ce-*` headers. */
export const CE_HEADERS = {
  specversion: 'ce-specversion',
  id: 'ce-id',
  type: 'ce-type',
  source: 'ce-source',
  time: 'ce-time',
  subject: 'ce-subject',
} as const;

export const CE_SPEC_VERSION = '1.0';

/**
 * CloudEvents extension attributes (binary mode: `ce-<name>` headers) saying who made the
 * change an event tells of, which the audit trail records: the principal (`org/user`,
 * `org/node`, `org/sa:account`, or `careen:<service>` for Careen's own work), its kind, how it
 * proved who it is, the request's source address and id.
 */
export const ACTOR_HEADERS = {
  actor: 'ce-careenactor',
  kind: 'ce-careenactorkind',
  via: 'ce-careenvia',
  source: 'ce-careensourceip',
  request: 'ce-careenrequestid',
} as const;
/**
 * The NATS binding's binary mode carries `datacontenttype` in the message's `content-type`
 * header, not as a `ce-` header. Careen's bodies are always JSON.
 */
export const CONTENT_TYPE_HEADER = 'content-type';
export const JSON_CONTENT_TYPE = 'application/json';
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';
/** Header that carries the reason a message was dead-lettered. */
export const DLQ_REASON_HEADER = 'careen-dlq-reason';
export const DLQ_ORIGINAL_SUBJECT_HEADER = 'careen-dlq-subject';

export interface CloudEventAttributes {
  id: string;
  type: string;
  source: string;
  time: string;
  subject?: string;
}
