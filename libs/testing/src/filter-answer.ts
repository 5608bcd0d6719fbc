import { type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';

export interface FilterAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** What an exception filter answers for `exception`, through a Fastify-like reply that records it. */
export function filterAnswer(filter: ExceptionFilter, exception: unknown): FilterAnswer {
  const sent: FilterAnswer = { status: 0, body: undefined, headers: {} };
  const reply = {
    sent: false,
    header(name: string, value: string) {
      sent.headers[name] = value;
      return this;
    },
    status(code: number) {
      sent.status = code;
      return this;
    },
    send(body: unknown) {
      sent.body = body;
      return this;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => reply }) } as unknown as ArgumentsHost;
  filter.catch(exception, host);
  return sent;
}
