/**
 * How the chaos run's own operator calls the platform: as an admin tool should, it tries again
 * when the call could not be made or the service said it cannot answer now (a reset, 502–504),
 * for up to a minute. Any other answer is the caller's to judge.
 */
import { http, type Credentials, type HttpResult, type RequestOptions } from '@careen/testing';
import { setTimeout as pause } from 'node:timers/promises';

const GIVE_UP_MS = 60_000;
const PAUSE_MS = 250;
/** An answer that never came is abandoned after this, and the call tried again. */
const CALL_TIMEOUT_MS = 10_000;

export type Call = (
  method: string,
  path: string,
  body?: unknown,
  options?: RequestOptions,
) => Promise<HttpResult>;

export function steadyClient(baseUrl: () => string, auth: Credentials): Call {
  return async (method, path, body, options = {}) => {
    const deadline = Date.now() + GIVE_UP_MS;
    for (;;) {
      let failure: string;
      try {
        const answer = await http(baseUrl(), method, path, {
          auth,
          body,
          timeoutMs: CALL_TIMEOUT_MS,
          ...options,
        });
        if (![502, 503, 504].includes(answer.status)) return answer;
        failure = `${answer.status} ${JSON.stringify(answer.body)}`;
      } catch (error) {
        failure = String((error as Error).cause ?? error);
      }
      if (Date.now() > deadline)
        throw new Error(`${method} ${path} could not be made for a minute: ${failure}`);
      await pause(PAUSE_MS);
    }
  };
}

/** The answer's body when its status is one of `accepted`; else an error naming the call. */
export async function expectAnswer(
  answer: Promise<HttpResult>,
  accepted: number[],
  what: string,
): Promise<HttpResult> {
  const result = await answer;
  if (!accepted.includes(result.status))
    throw new Error(`${what}: answered ${result.status} ${JSON.stringify(result.body)}`);
  return result;
}
