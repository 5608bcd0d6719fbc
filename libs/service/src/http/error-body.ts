/** The one error shape every Careen HTTP API answers with. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details?: unknown;
}

/** `ErrorBody` as an OpenAPI schema, for the services' documents. */
export const ERROR_BODY_SCHEMA = {
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  properties: {
    statusCode: { type: 'integer', example: 404 },
    error: { type: 'string', description: "the status's reason phrase", example: 'Not Found' },
    message: { type: 'string', description: 'what went wrong, in words' },
    details: {
      description:
        'what a client can act on: for a request that does not validate, each field with its problems; else an object with a stable `code` and the names involved',
      oneOf: [
        {
          type: 'array',
          items: {
            type: 'object',
            required: ['field', 'problems'],
            properties: { field: { type: 'string' }, problems: { type: 'array', items: { type: 'string' } } },
          },
        },
        { type: 'object', additionalProperties: true },
      ],
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

export function errorBody(statusCode: number, message: string, details?: unknown): ErrorBody {
  return {
    statusCode,
    error: REASONS[statusCode] ?? 'Error',
    message,
    ...(details === undefined ? {} : { details }),
  };
}
