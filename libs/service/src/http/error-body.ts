import { type FieldProblem } from '@careen/contracts';

/**
 * What a client can act on: always a stable `code`; `fields` when the request does not
 * validate; the names involved (a holder, a state, where to resync from) beside them.
 */
export interface ErrorDetails {
  code: string;
  fields?: FieldProblem[];
  [name: string]: unknown;
}

/** The one error shape every Careen HTTP API answers with. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details: ErrorDetails;
}

/** The code of a request that does not validate; its details list the fields. */
export const INVALID_REQUEST = 'INVALID_REQUEST';

/** `ErrorBody` as an OpenAPI schema, for the services' documents. */
export const ERROR_BODY_SCHEMA = {
  type: 'object',
  required: ['statusCode', 'error', 'message', 'details'],
  properties: {
    statusCode: { type: 'integer', example: 404 },
    error: { type: 'string', description: "the status's reason phrase", example: 'Not Found' },
    message: { type: 'string', description: 'what went wrong, in words' },
    details: {
      type: 'object',
      description:
        'what a client can act on: a stable `code` (a domain code such as NODE_NOT_FOUND, INVALID_REQUEST for a request that does not validate, else the status in words such as PAYLOAD_TOO_LARGE), `fields` with each field and its problems when the request does not validate, and the names involved',
      required: ['code'],
      properties: {
        code: { type: 'string', example: 'NODE_NOT_FOUND' },
        fields: {
          type: 'array',
          items: {
            type: 'object',
            required: ['field', 'problems'],
            properties: { field: { type: 'string' }, problems: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
      additionalProperties: true,
    },
  },
} as const;

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** An error answer; without a code of its own, `details.code` is the status in words (NOT_FOUND). */
export function errorBody(
  statusCode: number,
  message: string,
  details: Partial<ErrorDetails> = {},
): ErrorBody {
  const error = REASONS[statusCode] ?? 'Error';
  return {
    statusCode,
    error,
    message,
    details: { ...details, code: details.code ?? error.toUpperCase().replaceAll(' ', '_') },
  };
}
