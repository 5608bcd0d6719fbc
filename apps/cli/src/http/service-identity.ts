/**
 * Which service answered at a URL that turned out not to be an exchange. Each Careen service
 * names itself in the title of its API document (`GET /docs/openapi.json`: "Careen agbot"); the
 * console, which has none, names itself in the details of its error answers.
 */
import { type ExchangeRefusal } from './exchange-errors';

const ASK_TIMEOUT_MS = 5_000;

/** "Careen agbot", "Careen console", …; undefined when the answers name no service. */
export async function serviceAnswering(
  baseUrl: string,
  refusal: ExchangeRefusal,
): Promise<string | undefined> {
  const named = (refusal.body?.details as { service?: unknown } | undefined)?.service;
  if (typeof named === 'string' && named) return `Careen ${named}`;
  try {
    const answer = await fetch(`${baseUrl}/docs/openapi.json`, {
      signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
    });
    if (!answer.ok) return undefined;
    const title = ((await answer.json()) as { info?: { title?: unknown } } | null)?.info?.title;
    return typeof title === 'string' && /^Careen /.test(title) ? title : undefined;
  } catch {
    // Not JSON, or no answer: nothing names the service.
    return undefined;
  }
}
