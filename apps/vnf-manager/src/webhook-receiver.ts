/**
 * The reference VNF manager's second way of following its project: the notifier posts each
 * event to it as a webhook, a CloudEvent in binary mode (`ce-*` headers, the payload as the JSON
 * body), signed per Standard Webhooks. A delivery is checked (signature, type, contract, project)
 * before it is handled; one seen before (the notifier retries until it gets a 2xx) is
 * acknowledged and not handled again; one that could not be handled gets a 503 so that it is
 * retried. Events are handled one at a time, in the order they arrive.
 */
import {
  contractProblems,
  MaintenanceProjectEvent,
  MaintenanceProjectEventPayload,
  webhookSignatureProblem,
} from '@careen/contracts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';

const MAX_BODY_BYTES = 1024 * 1024;
const REMEMBERED_DELIVERIES = 10_000;

export interface WebhookReceiverOptions {
  project: string;
  port: number;
  host?: string;
  /**
   * The subscription's secret (`whsec_…`), or where to read it (it is known only once the
   * subscription naming this receiver's URL is made); without one deliveries are not checked.
   */
  secret?: string | (() => string | undefined);
  onEvent: (event: MaintenanceProjectEventPayload) => Promise<void>;
}

export class WebhookReceiver {
  private server: Server | undefined;
  private readonly seen = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: WebhookReceiverOptions) {}

  /** Listens; answers the URL to subscribe. */
  async start(): Promise<string> {
    const server = createServer((request, response) => void this.receive(request, response));
    this.server = server;
    await new Promise<void>((resolve) =>
      server.listen(this.options.port, this.options.host ?? '127.0.0.1', resolve),
    );
    const { address, port } = server.address() as AddressInfo;
    return `http://${address.includes(':') ? `[${address}]` : address}:${port}/`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await this.queue.catch(() => undefined);
  }

  private async receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const answer = (status: number, message?: string) => {
      response.writeHead(status, message ? { 'content-type': 'application/json' } : {});
      response.end(message ? JSON.stringify({ message }) : undefined);
    };
    if (request.method !== 'POST') return answer(405, 'deliveries are POSTed');
    const body = await readBody(request);
    if (body === undefined) return answer(413, `a delivery is at most ${MAX_BODY_BYTES} bytes`);
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const secret = typeof this.options.secret === 'function' ? this.options.secret() : this.options.secret;
    if (secret) {
      const problem = webhookSignatureProblem(
        secret,
        {
          id: header('webhook-id'),
          timestamp: header('webhook-timestamp'),
          signature: header('webhook-signature'),
        },
        body,
      );
      if (problem) return answer(401, problem);
    }
    if (header('ce-type') !== MaintenanceProjectEvent.type)
      return answer(400, `ce-type must be ${MaintenanceProjectEvent.type}`);
    let event: unknown;
    try {
      event = JSON.parse(body);
    } catch {
      return answer(400, 'the body is not JSON');
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event))
      return answer(400, 'the body must be an object');
    const problem = contractProblems(MaintenanceProjectEventPayload, event);
    if (problem) return answer(400, problem);
    const payload = event as MaintenanceProjectEventPayload;
    if (payload.project_id !== this.options.project)
      return answer(
        400,
        `this manager answers for project ${this.options.project}, not ${payload.project_id}`,
      );
    const delivery = header('webhook-id') ?? header('ce-id');
    if (delivery && this.seen.has(delivery)) return answer(204);
    const handled = this.queue.then(() => this.options.onEvent(payload));
    this.queue = handled.catch(() => undefined);
    try {
      await handled;
    } catch (error) {
      return answer(503, `not handled: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (delivery) this.remember(delivery);
    answer(204);
  }

  private remember(delivery: string): void {
    this.seen.add(delivery);
    if (this.seen.size > REMEMBERED_DELIVERIES) this.seen.delete(this.seen.values().next().value!);
  }
}

/** The body as text, or undefined when it is larger than a delivery may be. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
