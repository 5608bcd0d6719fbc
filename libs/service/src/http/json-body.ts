/**
 * JSON body parsing with a size limit, and for services that take documents in YAML, YAML
 * bodies as text (the route parses them). Oversized bodies answer 413 and malformed JSON 400,
 * in the common error shape, before any route runs.
 */
import { type NestExpressApplication } from '@nestjs/platform-express';
import { type NextFunction, type Request, type Response } from 'express';
import { errorBody } from './error-body';

export const DEFAULT_BODY_LIMIT = '1mb';

/** The media types a YAML body may come as. */
export const YAML_MEDIA_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

export function useJsonBody(app: NestExpressApplication, limit = DEFAULT_BODY_LIMIT, yaml = false): void {
  app.useBodyParser('json', { limit });
  if (yaml) app.useBodyParser('text', { limit, type: YAML_MEDIA_TYPES });
  app.use((error: unknown, _request: Request, response: Response, next: NextFunction) => {
    const parserError = error as { type?: string; message?: string };
    const answer = parserErrorAnswer(parserError.type, parserError.message ?? '', limit);
    if (!answer) {
      next(error);
      return;
    }
    response.status(answer.status).json(errorBody(answer.status, answer.message));
  });
}

function parserErrorAnswer(
  type: string | undefined,
  message: string,
  limit: string,
): { status: number; message: string } | undefined {
  if (type === 'entity.too.large') return { status: 413, message: `request body exceeds the ${limit} limit` };
  if (type === 'entity.parse.failed')
    return { status: 400, message: `malformed JSON body: ${message || 'cannot parse'}` };
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return { status: 415, message };
  return undefined;
}
