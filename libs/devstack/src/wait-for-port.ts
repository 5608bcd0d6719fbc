import { connect } from 'node:net';

/** Resolves once something accepts TCP connections on host:port, or rejects after the deadline. */
export async function waitForPort(
  port: number,
  options: { host?: string; timeoutMs?: number; isAlive?: () => boolean } = {},
): Promise<void> {
  const host = options.host ?? '127.0.0.1';
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    if (await canConnect(host, port)) return;
    if (options.isAlive && !options.isAlive())
      throw new Error(`the process meant to listen on ${host}:${port} exited`);
    if (Date.now() > deadline) throw new Error(`nothing listened on ${host}:${port} within the deadline`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
