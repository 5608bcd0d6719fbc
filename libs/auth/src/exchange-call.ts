/**
 * One request from a service to the exchange while checking credentials: an answer the caller
 * judges by status, or AuthServiceUnavailableError when the exchange cannot be reached, times
 * out, fails, or sends an unreadable success — never an error that reads as "wrong credentials".
 */
import { AuthServiceUnavailableError } from './auth.errors';

/** Answers that mean "not these credentials" rather than "cannot tell right now". */
const REJECTED_STATUSES = new Set([400, 401, 403]);

export type ExchangeAnswer = { rejected: true; message?: string } | { rejected: false; body: unknown };

export async function askExchange(
  fetcher: typeof fetch,
  url: URL,
  init: RequestInit,
  timeoutMs: number,
): Promise<ExchangeAnswer> {
  let response: Response;
  try {
    response = await fetcher(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new AuthServiceUnavailableError('the exchange could not be reached to check credentials', {
      cause: error,
    });
  }
  if (!response.ok) {
    if (REJECTED_STATUSES.has(response.status)) {
      const body = (await response.json().catch(() => undefined)) as { message?: unknown } | undefined;
      return { rejected: true, message: typeof body?.message === 'string' ? body.message : undefined };
    }
    await response.body?.cancel().catch(() => undefined);
    throw new AuthServiceUnavailableError(
      `the exchange answered ${response.status} while checking credentials`,
    );
  }
  try {
    return { rejected: false, body: await response.json() };
  } catch (error) {
    throw new AuthServiceUnavailableError(
      'the exchange sent an unreadable answer while checking credentials',
      {
        cause: error,
      },
    );
  }
}
