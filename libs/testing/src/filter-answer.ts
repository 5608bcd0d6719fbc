import { type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';

export interface FilterAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** What an exception filter answers for `exception`, through an Express-like response that records it. */
export function filterAnswer(filter: ExceptionFilter, exception: unknown): FilterAnswer {
  const sent: FilterAnswer = { status: 0, body: undefined, headers: {} };
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => void (sent.headers[name] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  filter.catch(exception, host);
  return sent;
}
