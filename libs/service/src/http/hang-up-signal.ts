/**
 * Aborts when the client hangs up before its answer was sent, so a long wait (a long poll, a
 * wait for a slot) stops at once. An answered request's connection closing later is not a
 * hang-up: that close, which every answered request has, aborts nothing and costs nothing.
 */
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { type ServerResponse } from 'node:http';

export function hangUpSignal(response: ServerResponse): AbortSignal {
  const hangUp = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) hangUp.abort();
  });
  return hangUp.signal;
}

/** A route's parameter: the signal that its caller hung up. */
export const HangUp = createParamDecorator((_data: unknown, context: ExecutionContext): AbortSignal =>
  hangUpSignal(context.switchToHttp().getResponse<FastifyReply>().raw),
);
