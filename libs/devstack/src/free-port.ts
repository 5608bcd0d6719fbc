import { createServer } from 'node:net';

/**
 * Ports this process handed out lately. The kernel may offer a port again as soon as it is
 * closed, so two callers asking at once (the members of a cluster, the replicas of a service)
 * could each be given the same one; each is given a port of its own instead.
 */
const handedOut = new Set<number>();
const REMEMBERED = 4_096;

/** Asks the kernel for a free TCP port on the loopback interface, one not handed out lately. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await kernelFreePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (handedOut.size > REMEMBERED) handedOut.delete(handedOut.values().next().value!);
    return port;
  }
}

/**
 * Whether a server could listen on `port` on every address now: a port that only refuses
 * connections to 127.0.0.1 may still be held on another address.
 */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function kernelFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
