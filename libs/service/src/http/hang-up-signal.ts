/**
 * Aborts when the client hangs up before its answer was sent, so a long wait (a long poll, a
 * wait for a slot) stops at once. An answered request's connection closing later is not a
 * hang-up: that close, which every answered request has, aborts nothing and costs nothing.
 */
import { type Response } from 'express';

export function hangUpSignal(response: Response): AbortSignal {
  const hangUp = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) hangUp.abort();
  });
  return hangUp.signal;
}
