import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { HubConnections } from './hub-connections';

/** How long the agent keeps a connection other than the poll's open without a request, here. */
const IDLE_MS = 1_000;
/** Longest wait for the hub to see what a test expects (the idle connections close after IDLE_MS). */
const WAIT_MS = 15_000;

/**
 * Stands in for the exchange: keeps connections alive for 65 s as it does, holds `/poll` until
 * told, answers anything else at once, and knows the connections open to it.
 */
class Hub {
  readonly open = new Set<Socket>();
  readonly pollPorts: number[] = [];
  private heldPolls: ServerResponse[] = [];
  private readonly server: Server;
  /** Wakes whoever waits in `until`: a connection closed or a poll arrived. */
  private wake: () => void = () => undefined;

  constructor() {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      if (request.url === '/poll') {
        this.pollPorts.push(request.socket.remotePort!);
        this.heldPolls.push(response);
        this.wake();
      } else response.end('{}');
    });
    this.server.keepAliveTimeout = 65_000;
    this.server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.on('close', () => {
        this.open.delete(socket);
        this.wake();
      });
    });
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once a poll is held. */
  pollHeld(): Promise<void> {
    return this.until(() => this.heldPolls.length > 0, 'no poll held');
  }

  answerPolls(): void {
    for (const response of this.heldPolls) response.end('{}');
    this.heldPolls = [];
  }

  /** Resolves once no more than `count` connections are open. */
  openAtMost(count: number): Promise<void> {
    return this.until(() => this.open.size <= count, `more than ${count} connections open`);
  }

  /** Resolves once `holds`, looked at whenever the hub wakes; fails with `failure` after WAIT_MS. */
  private async until(holds: () => boolean, failure: string): Promise<void> {
    const timer = setTimeout(() => this.wake(), WAIT_MS);
    const deadline = Date.now() + WAIT_MS;
    try {
      while (!holds()) {
        if (Date.now() >= deadline) throw new Error(`${failure} after ${WAIT_MS} ms`);
        await new Promise<void>((woken) => (this.wake = woken));
      }
    } finally {
      clearTimeout(timer);
    }
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((closed) => this.server.close(() => closed()));
  }
}

describe('HubConnections', () => {
  const hub = new Hub();
  let url: string;
  const connections = new HubConnections({ idleMs: IDLE_MS });

  beforeAll(async () => (url = await hub.start()));
  afterAll(async () => {
    await connections.close();
    await hub.stop();
  });

  const poll = async () => (await connections.poll(new Request(`${url}/poll`))).text();
  const send = async () => (await connections.send(new Request(`${url}/status`, { method: 'PUT' }))).text();

  it('keeps one connection for the polls, and closes the others once idle', async () => {
    const waiting = poll();
    // Awaited below; a failure before then must not leave it unhandled.
    waiting.catch(() => undefined);
    // A burst beside the poll, as an agent's status write and reads: connections of their own.
    await Promise.all([send(), send(), send()]);
    expect(hub.open.size).toBeGreaterThanOrEqual(2);
    await hub.openAtMost(1);
    await hub.pollHeld();
    hub.answerPolls();
    await waiting;

    // Polls one after the other, as an idle agent makes them: all on the first poll's connection.
    for (let i = 0; i < 5; i++) {
      const next = poll();
      await hub.pollHeld();
      hub.answerPolls();
      await next;
    }
    expect(new Set(hub.pollPorts)).toEqual(new Set([hub.pollPorts[0]]));
    expect(hub.open.size).toBe(1);
  });
});
