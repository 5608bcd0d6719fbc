/** A small fetch wrapper for tests that talk to a real service over HTTP. */
export type Credentials = { bearer: string } | { basic: string } | undefined;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers
export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  auth?: Credentials;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, for malformed and oversized bodies. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Gives up (throws) when no answer came within this. */
  timeoutMs?: number;
}

export function basic(org: string, id: string, secret: string): Credentials {
  return { basic: `${org}/${id}:${secret}` };
}

export function bearer(token: string): Credentials {
  return { bearer: token };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function http<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth && 'bearer' in options.auth) headers.authorization = `Bearer ${options.auth.bearer}`;
  if (options.auth && 'basic' in options.auth)
    headers.authorization = `Basic ${Buffer.from(options.auth.basic).toString('base64')}`;
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const signal = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
  const response = await fetch(new URL(path, baseUrl), { method, headers, body, signal });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}
