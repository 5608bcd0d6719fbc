/**
 * The benches' HTTP client: requests over kept-alive connections, as agents send them, each
 * answer timed; `all` sends many a fixed number at a time and fails on the first that is not a
 * success.
 */
import { Agent, request } from 'node:http';

export interface Call {
  method: string;
  path: string;
  token?: string;
  body?: unknown;
}

export interface Answer {
  status: number;
  body: string;
  ms: number;
}

export class HttpClient {
  private readonly agent: Agent;

  constructor(maxSockets: number) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  send(base: string, call: Call): Promise<Answer> {
    const started = performance.now();
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    return new Promise((resolve, reject) => {
      const outgoing = request(
        new URL(call.path, base),
        {
          method: call.method,
          agent: this.agent,
          headers: {
            ...(call.token ? { authorization: call.token } : {}),
            ...(payload ? { 'content-type': 'application/json' } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              body: Buffer.concat(chunks).toString(),
              ms: performance.now() - started,
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }

  /** Sends every call, `concurrency` at a time; throws on the first answer that is not a success. */
  async all(
    base: string,
    calls: Call[],
    concurrency: number,
  ): Promise<{ latenciesMs: number[]; elapsedMs: number }> {
    const latenciesMs: number[] = [];
    // One iterator shared by every lane: each call is made by exactly one of them.
    const queue = calls.values();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (const call of queue) {
          const answer = await this.send(base, call);
          if (answer.status >= 300)
            throw new Error(`${call.method} ${call.path}: ${answer.status} ${answer.body.slice(0, 300)}`);
          latenciesMs.push(answer.ms);
        }
      }),
    );
    return { latenciesMs, elapsedMs: performance.now() - started };
  }

  close(): void {
    this.agent.destroy();
  }
}
