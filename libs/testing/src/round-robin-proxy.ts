/**
 * One address in front of a service's replicas, as a Kubernetes Service is: each TCP
 * connection goes to the next replica in turn, and to the one after it when that one refuses
 * (a replica that was killed), so clients see the service while any replica lives.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Connections each upstream port has been given. */
  readonly connections: Map<number, number>;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreamPorts: readonly number[]): Promise<RoundRobinProxy> {
  let next = 0;
  const connections = new Map(upstreamPorts.map((port) => [port, 0]));
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };

  /** Connects to the next replica that accepts, trying each at most once. */
  const connectUpstream = (tried = 0): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const port = upstreamPorts[next++ % upstreamPorts.length]!;
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

  const server: Server = createServer((client) => {
    track(client);
    client.pause();
    connectUpstream().then(
      (upstream) => {
        track(upstream);
        client.pipe(upstream).pipe(client);
        const end = () => {
          client.destroy();
          upstream.destroy();
        };
        client.once('error', end).once('close', end);
        upstream.once('error', end).once('close', end);
        client.resume();
      },
      () => client.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
