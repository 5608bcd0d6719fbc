/**
 * Holds an answer a service gave against what its OpenAPI document says of that operation:
 * the operation is there, the status is listed, the media type is listed, and a JSON body
 * validates against the documented schema — with every documented object closed, so a field
 * the document does not name is a mismatch too, not only a missing or mistyped one.
 */
import { type RecordedAnswer } from '@careen/service';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

interface Response {
  content?: Record<string, { schema?: object }>;
}

interface Operation {
  responses: Record<string, Response>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, object> };
}

/** Routes every service has that are for operators' tools, not for integrators: not documented. */
const OPERATIONAL_ROUTES = new Set(['/healthz', '/readyz', '/metrics', '/docs/openapi.json']);

/** A Fastify route (`/v1/orgs/:org`) as the document names its path (`/v1/orgs/{org}`). */
export const documentPath = (route: string): string => route.replace(/:(\w+)/g, '{$1}');

export class AnswerContract {
  private readonly ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  private readonly document: OpenApiDocument;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    this.document = closeObjects(structuredClone(document));
  }

  /** What is wrong with `answer`, one line each; empty when the document describes it. */
  problems(answer: RecordedAnswer): string[] {
    const path = documentPath(answer.route);
    if (OPERATIONAL_ROUTES.has(path)) return [];
    const operation = this.document.paths[path]?.[answer.method.toLowerCase()];
    if (!operation) return ['the document has no such operation'];
    const response = operation.responses[answer.status] ?? operation.responses.default;
    if (!response) {
      const listed = Object.keys(operation.responses).join(', ');
      return [`the document lists ${listed}, not this status`];
    }
    const mediaType = answer.contentType?.split(';')[0]?.trim();
    if (answer.body === undefined && mediaType === undefined) return [];
    const media = mediaType === undefined ? undefined : response.content?.[mediaType];
    if (!media) {
      const listed = Object.keys(response.content ?? {}).join(', ') || 'no body';
      return [`answered ${mediaType ?? 'a body'} where the document gives ${listed}`];
    }
    if (answer.body === undefined || media.schema === undefined) return [];
    const validate = this.validator(`${path} ${answer.method} ${answer.status} ${mediaType}`, media.schema);
    if (validate(answer.body)) return [];
    return (validate.errors ?? []).map((error) => {
      const extra = (error.params as { additionalProperty?: string }).additionalProperty;
      return `body${error.instancePath} ${error.message}${extra ? ` (${extra})` : ''}`;
    });
  }

  private validator(key: string, schema: object): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      // The schema's references point into the document's components, so they travel with it.
      validate = this.ajv.compile({ ...schema, components: this.document.components });
      this.validators.set(key, validate);
    }
    return validate;
  }
}

/**
 * Gives every object schema of the document's components and answers that names its
 * properties and says nothing of others `additionalProperties: false`.
 */
function closeObjects(document: OpenApiDocument): OpenApiDocument {
  Object.values(document.components?.schemas ?? {}).forEach(closeSchema);
  for (const item of Object.values(document.paths))
    for (const operation of Object.values(item))
      for (const response of Object.values(operation.responses ?? {}))
        for (const media of Object.values(response.content ?? {}))
          if (media.schema) closeSchema(media.schema);
  return document;
}

function closeSchema(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (typeof schema.properties === 'object' && schema.properties !== null) {
    schema.additionalProperties ??= false;
    Object.values(schema.properties).forEach(closeSchema);
  }
  for (const key of ['items', 'additionalProperties', 'not']) closeSchema(schema[key]);
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach(closeSchema);
}
