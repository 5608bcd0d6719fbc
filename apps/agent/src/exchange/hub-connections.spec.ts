import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { HubConnections } from './hub-connections';

/**
 * Stands in for the exchange: keeps connections alive for 65 s as it does, holds `/poll` until
 * told, answers anything else at once, and knows the connections open to it.
 */
class Hub {
  readonly open = new Set<Socket>();
  readonly pollPorts: number[] = [];
  private heldPolls: ServerResponse[] = [];
  private readonly server: Server;
  private closedOne: (() => void) | undefined;
  private pollArrived: (() => void) | undefined;

  constructor() {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      if (request.url === '/poll') {
        this.pollPorts.push(request.socket.remotePort!);
        this.heldPolls.push(response);
        this.pollArrived?.();
      } else response.end('{}');
    });
    this.server.keepAliveTimeout = 65_000;
    this.server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.on('close', () => {
        this.open.delete(socket);
        this.closedOne?.();
      });
    });
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves once a poll is held. */
  async pollHeld(): Promise<void> {
    while (this.heldPolls.length === 0) await new Promise<void>((arrived) => (this.pollArrived = arrived));
  }

  answerPolls(): void {
    for (const response of this.heldPolls) response.end('{}');
    this.heldPolls = [];
  }

  /** Resolves once no more than `count` connections are open; fails if that takes `withinMs`. */
  async openAtMost(count: number, withinMs: number): Promise<void> {
    const deadline = setTimeout(() => this.closedOne?.(), withinMs);
    const started = Date.now();
    while (this.open.size > count) {
      if (Date.now() - started >= withinMs)
        throw new Error(`${this.open.size} connections still open after ${withinMs} ms`);
      await new Promise<void>((closed) => (this.closedOne = closed));
    }
    clearTimeout(deadline);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((closed) => this.server.close(() => closed()));
  }
}

describe('HubConnections', () => {
  const hub = new Hub();
  let url: string;
  const connections = new HubConnections();

  beforeAll(async () => (url = await hub.start()));
  afterAll(async () => {
    await connections.close();
    await hub.stop();
  });

  const poll = async () => (await connections.poll(new Request(`${url}/poll`))).text();
  const send = async () => (await connections.send(new Request(`${url}/status`, { method: 'PUT' }))).text();

  it('keeps one connection for the polls, and closes the others once idle', async () => {
    const waiting = poll();
    // A burst beside the poll, as an agent's status write and reads: connections of their own.
    await Promise.all([send(), send(), send()]);
    expect(hub.open.size).toBeGreaterThanOrEqual(2);
    await hub.openAtMost(1, 15_000);
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
