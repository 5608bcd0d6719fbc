/**
 * HTTP to the exchange: the one place that adds credentials, sends and parses JSON, and turns
 * failures into CliErrors (through exchange-errors). It knows routes only as paths.
 */
import { Readable } from 'node:stream';
import { authorizationHeader, type Credentials } from '../auth/credentials';
import { ExchangeUnreachable, failureReason, refusal } from './exchange-errors';

export type Fetch = typeof fetch;

export interface ExchangeClientOptions {
  /** Normalized: no trailing slash. */
  exchangeUrl: string;
  credentials?: Credentials;
  /** Suggested when the exchange answers 401 to the credentials. */
  refusalHint?: string;
  timeoutMs?: number;
  fetch?: Fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Encodes each interpolated value as one path segment: path`/v1/orgs/${org}` */
export function path(strings: TemplateStringsArray, ...segments: string[]): string {
  return strings.reduce(
    (result, part, index) =>
      result + part + (index < segments.length ? encodeURIComponent(segments[index]) : ''),
    '',
  );
}

export class ExchangeClient {
  private readonly timeoutMs: number;
  private readonly fetch: Fetch;

  constructor(private readonly options: ExchangeClientOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetch = options.fetch ?? fetch;
  }

  get exchangeUrl(): string {
    return this.options.exchangeUrl;
  }

  get<T>(route: string): Promise<T> {
    return this.request<T>('GET', route);
  }

  post<T>(route: string, body: unknown): Promise<T> {
    return this.request<T>('POST', route, body);
  }

  put<T>(route: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', route, body);
  }

  patch<T>(route: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', route, body);
  }

  async delete(route: string): Promise<void> {
    await this.request<unknown>('DELETE', route);
  }

  /**
   * Sends `body` as is, streamed (not JSON), e.g. a file.
   * @param headers the content type, length and any other header of the upload
   */
  upload<T>(route: string, body: Readable, headers: Record<string, string>): Promise<T> {
    return this.request<T>('POST', route, undefined, { body, headers });
  }

  /**
   * Opens a server-sent event stream at `route`, resuming after `lastEventId` when given: the
   * body, once the service answered 200 (within the timeout; the stream itself has none).
   */
  async openEventStream(
    route: string,
    lastEventId: string | undefined,
    signal: AbortSignal,
  ): Promise<ReadableStream<Uint8Array>> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.options.credentials) headers.authorization = authorizationHeader(this.options.credentials);
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const answered = new AbortController();
    const timer = setTimeout(() => answered.abort(new Error('timeout')), this.timeoutMs);
    let response: Response;
    try {
      response = await this.fetch(`${this.options.exchangeUrl}${route}`, {
        headers,
        signal: AbortSignal.any([signal, answered.signal]),
      });
    } catch (error) {
      throw new ExchangeUnreachable(this.options.exchangeUrl, failureReason(error, this.timeoutMs));
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok || !response.body) {
      const text = await response.text();
      throw refusal(
        response.status,
        response.statusText,
        parseJson(text),
        this.options.exchangeUrl,
        this.options.refusalHint,
      );
    }
    return response.body;
  }

  private async request<T>(
    method: string,
    route: string,
    body?: unknown,
    raw?: { body: Readable; headers: Record<string, string> },
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...raw?.headers };
    if (this.options.credentials) headers.authorization = authorizationHeader(this.options.credentials);
    if (body !== undefined) headers['content-type'] = 'application/json';

    let response: Response;
    let text: string;
    try {
      response = await this.fetch(`${this.options.exchangeUrl}${route}`, {
        method,
        headers,
        body: raw
          ? (Readable.toWeb(raw.body) as ReadableStream)
          : body === undefined
            ? undefined
            : JSON.stringify(body),
        // Required by fetch to send a stream.
        ...(raw ? { duplex: 'half' } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new ExchangeUnreachable(this.options.exchangeUrl, failureReason(error, this.timeoutMs));
    }

    const parsed = parseJson(text);
    if (!response.ok) {
      throw refusal(
        response.status,
        response.statusText,
        parsed,
        this.options.exchangeUrl,
        this.options.refusalHint,
      );
    }
    if (text !== '' && parsed === undefined) {
      throw refusal(response.status, response.statusText, undefined, this.options.exchangeUrl);
    }
    return parsed as T;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
