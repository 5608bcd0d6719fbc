/**
 * JSON body parsing with a size limit. Oversized bodies answer 413 and malformed JSON 400,
 * in the common error shape, before any route runs.
 */
import { type NestExpressApplication } from '@nestjs/platform-express';
import { type NextFunction, type Request, type Response } from 'express';
import { errorBody } from './error-body';

export const DEFAULT_BODY_LIMIT = '1mb';

export function useJsonBody(app: NestExpressApplication, limit = DEFAULT_BODY_LIMIT): void {
  app.useBodyParser('json', { limit });
  app.use((error: unknown, _request: Request, response: Response, next: NextFunction) => {
    const parserError = error as { type?: string; status?: number; message?: string; limit?: number };
    switch (parserError?.type) {
      case 'entity.too.large':
        response.status(413).json(errorBody(413, `request body exceeds the ${limit} limit`));
        return;
      case 'entity.parse.failed':
        response.status(400).json(errorBody(400, `malformed JSON body: ${parserError.message ?? 'cannot parse'}`));
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        response.status(415).json(errorBody(415, parserError.message ?? 'unsupported encoding'));
        return;
      default:
        next(error);
    }
  });
}
