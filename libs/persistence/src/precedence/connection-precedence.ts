/**
 * Which work goes first when every database connection is in use: work run inside
 * `withPrecedence` (and everything it awaits) takes the next free connection ahead of work
 * that is not. A service gives precedence to what shortens a disruption, e.g. the writes of a
 * node that is out of service for its upgrade, so that they do not queue behind a fleet's
 * routine writes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const precedence = new AsyncLocalStorage<true>();

export function withPrecedence<T>(work: () => T): T {
  return precedence.run(true, work);
}

export function hasPrecedence(): boolean {
  return precedence.getStore() === true;
}
