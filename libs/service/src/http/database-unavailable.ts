/**
 * Whether an error only says that Postgres cannot be reached right now (restarting, failed
 * over, refusing connections, or every pooled connection in use for longer than a request may
 * wait), or that it ended the request's transaction to let another one through (a deadlock): the
 * request may succeed if tried again, so it is answered 503 with Retry-After, not 500.
 */

/** SQLSTATEs of a connection that failed, of a server shutting down or starting up, or of a database not there. */
const UNAVAILABLE_STATES = new Set([
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '3D000', // invalid_catalog_name: the service's database is not there (not yet restored, or dropped)
]);

const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** What node-postgres says when its connection went away or never came. */
const UNAVAILABLE_MESSAGES = /Connection terminated|Client has encountered a connection error/;

/**
 * What node-postgres's pool says when every connection stayed in use for as long as a request may
 * wait for one (CAREEN_DATABASE_POOL_WAIT_MS); a new connection that cannot be opened in that
 * time says "Connection terminated due to connection timeout" instead.
 */
const POOL_WAIT_EXPIRED = 'timeout exceeded when trying to connect';

/**
 * What TypeORM raises for a query on a connection it already gave back: inside a transaction
 * that happens when the connection broke under it (the driver releases it on the socket's error),
 * and the request's next query finds it gone.
 */
const RELEASED_CONNECTION_ERRORS = new Set([
  'QueryRunnerAlreadyReleasedError',
  'QueryRunnerProviderAlreadyReleasedError',
]);

interface ErrorLike {
  name?: unknown;
  message: string;
  code?: unknown;
  driverError?: unknown;
}

/** An error by its shape: one raised by Node's own sockets is not an `Error` of every realm. */
const isErrorLike = (value: unknown): value is ErrorLike =>
  typeof value === 'object' && value !== null && typeof (value as ErrorLike).message === 'string';

/**
 * SQLSTATEs of a transaction that Postgres ended to break a deadlock, or to keep serializable
 * order: the same request, tried again, goes through.
 */
const CONFLICT_STATES = new Set(['40001', '40P01']);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!isErrorLike(error)) return false;
  if (typeof error.name === 'string' && RELEASED_CONNECTION_ERRORS.has(error.name)) return true;
  if (isDatabaseBusy(error)) return true;
  return driverErrors(error).some((each) => {
    const code = each.code;
    if (typeof code === 'string' && (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code)))
      return true;
    return UNAVAILABLE_MESSAGES.test(each.message);
  });
}

/** Whether the request waited for a pooled connection as long as it may, every one staying in use. */
export function isDatabaseBusy(error: unknown): boolean {
  return driverErrors(error).some((each) => each.message === POOL_WAIT_EXPIRED);
}

/** Whether Postgres ended the request's transaction only because it collided with another one. */
export function isTransientConflict(error: unknown): boolean {
  return driverErrors(error).some((each) => typeof each.code === 'string' && CONFLICT_STATES.has(each.code));
}

/** The error and, when TypeORM wrapped the driver's, that one (`driverError`). */
function driverErrors(error: unknown): ErrorLike[] {
  if (!isErrorLike(error)) return [];
  return [error, error.driverError].filter(isErrorLike);
}
