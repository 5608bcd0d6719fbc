/**
 * A TCP proxy for tests, in front of one upstream or several (round robin, as a Kubernetes
 * Service is: a connection goes to the next upstream in turn, and to the one after it when that
 * one refuses), that injects the faults of a network between two parts:
 * - `delay(ms)`: every chunk, in both directions, arrives that much later (order kept);
 * - `partition()`: nothing passes either way and new connections wait, until `heal()`, which
 *   delivers what was held, as TCP retransmits once a short partition ends;
 * - `reset()`: every open connection is reset (RST) on both sides, as a crashed middlebox does;
 * - `refuse()`: as `reset()`, and every new connection is reset at once until `heal()`, as an
 *   upstream that is down;
 * - `resetRequest(start)`: the connection that next sends a request beginning with `start` is
 *   reset before the request reaches the upstream: one call lost, the others untouched.
 * What the upstreams answer can be watched as it passes (`observeResponses`).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';

export interface TcpProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Connections each upstream port has been given. */
  readonly connections: Map<number, number>;
  delay(ms: number): void;
  partition(): void;
  heal(): void;
  reset(): void;
  /** Resolves once a new connection was refused. */
  refuse(): Promise<void>;
  /** Resolves once a request beginning with `start` was cut off (the next one only). */
  resetRequest(start: string): Promise<void>;
  /**
   * Watches what upstreams send back: `watch` is called for each new connection and answers
   * the function that is given that connection's chunks, in order.
   */
  observeResponses(watch: () => (chunk: Buffer) => void): void;
  close(): Promise<void>;
}

export async function startTcpProxy(upstreamPorts: readonly number[]): Promise<TcpProxy> {
  let next = 0;
  let delayMs = 0;
  /** While partitioned, what waits for the heal: held chunks and held connections. */
  let partitioned: (() => void)[] | undefined;
  const connections = new Map(upstreamPorts.map((port) => [port, 0]));
  const pairs = new Set<[Socket, Socket]>();
  const waiting = new Set<Socket>();
  let watchResponses: (() => (chunk: Buffer) => void) | undefined;
  let armed: { start: Buffer; fired: () => void } | undefined;
  /** While refusing: called at each connection refused. */
  let refusing: (() => void) | undefined;

  /** Passes chunks on after the current delay, and not at all while partitioned. */
  const link = () =>
    new Transform({
      transform(chunk: Buffer, _encoding, done: TransformCallback) {
        const pass = () => (delayMs > 0 ? setTimeout(() => done(null, chunk), delayMs) : done(null, chunk));
        if (partitioned) partitioned.push(pass);
        else pass();
      },
    });

  /** Resets the pair, dropping the chunk, when the chunk begins the request armed for. */
  const cutOff = (pair: [Socket, Socket]) =>
    new Transform({
      transform(chunk: Buffer, _encoding, done: TransformCallback) {
        if (!armed || !chunk.subarray(0, armed.start.length).equals(armed.start)) return done(null, chunk);
        armed.fired();
        armed = undefined;
        done();
        for (const socket of pair) socket.resetAndDestroy();
      },
    });

  /** Connects to the next upstream that accepts, trying each at most once. */
  const connectUpstream = (tried = 0): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const port = upstreamPorts[next++ % upstreamPorts.length];
      if (port === undefined) return reject(new Error('the proxy was given no upstream'));
      const upstream = connect({ host: '127.0.0.1', port });
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        connections.set(port, (connections.get(port) ?? 0) + 1);
        resolve(upstream);
      });
      upstream.once('error', (error) => {
        upstream.destroy();
        if (tried + 1 >= upstreamPorts.length) reject(error);
        else connectUpstream(tried + 1).then(resolve, reject);
      });
    });

  const join = (client: Socket) => {
    waiting.delete(client);
    if (client.destroyed) return;
    connectUpstream().then(
      (upstream) => {
        const pair: [Socket, Socket] = [client, upstream];
        pairs.add(pair);
        client.pipe(cutOff(pair)).pipe(link()).pipe(upstream);
        upstream.pipe(link()).pipe(client);
        if (watchResponses) upstream.on('data', watchResponses());
        const end = () => {
          pairs.delete(pair);
          client.destroy();
          upstream.destroy();
        };
        for (const socket of pair) socket.once('error', end).once('close', end);
        client.resume();
      },
      () => client.destroy(),
    );
  };

  const resetAll = () => {
    for (const pair of [...pairs]) for (const socket of pair) socket.resetAndDestroy();
  };

  const server: Server = createServer((client) => {
    client.pause();
    client.once('error', () => client.destroy());
    if (refusing) {
      client.resetAndDestroy();
      refusing();
      return;
    }
    waiting.add(client);
    if (partitioned) partitioned.push(() => join(client));
    else join(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections,
    delay: (ms) => {
      delayMs = ms;
    },
    partition: () => {
      partitioned ??= [];
    },
    heal: () => {
      const held = partitioned ?? [];
      partitioned = undefined;
      refusing = undefined;
      for (const release of held) release();
    },
    reset: resetAll,
    refuse: () =>
      new Promise<void>((refused) => {
        refusing = refused;
        resetAll();
      }),
    resetRequest: (start) =>
      new Promise<void>((fired) => {
        armed = { start: Buffer.from(start, 'latin1'), fired };
      }),
    observeResponses: (watch) => {
      watchResponses = watch;
    },
    close: () =>
      new Promise<void>((resolve) => {
        partitioned = undefined;
        for (const pair of pairs) for (const socket of pair) socket.destroy();
        for (const socket of waiting) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
