/**
 * The other Careen services the CLI talks to besides the exchange (the agbot, the maintenance
 * service): their base URLs, checked, and their failures named after them rather than after the
 * exchange the shared client speaks of.
 */
import { CliError } from '../cli-errors';
import { ExchangeRefusal, ExchangeUnreachable } from './exchange-errors';

/** `http(s)://host[:port][/path]` without a trailing slash; a CliError naming `service` otherwise. */
export function serviceBaseUrl(service: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`invalid ${service} URL "${raw}": expected http://host:port or https://host`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`invalid ${service} URL "${raw}": expected http://host:port or https://host`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new CliError(
      `invalid ${service} URL "${raw}": credentials, query and fragment do not belong in it`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Runs a request to `service` at `url`; `setting` says how to point the CLI elsewhere. */
export async function askService<T>(
  service: string,
  url: string,
  setting: string,
  request: () => Promise<T>,
): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (error instanceof ExchangeUnreachable) {
      throw new CliError(`cannot reach the ${service} at ${url} (${error.reason}); set ${setting}`);
    }
    if (error instanceof ExchangeRefusal && error.body === undefined) {
      throw new CliError(
        `the ${service} at ${url} answered ${error.status}; is that URL a Careen ${service}?`,
      );
    }
    throw error;
  }
}
