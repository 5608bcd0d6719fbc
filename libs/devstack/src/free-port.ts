import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/**
 * Ports this process handed out lately: two callers asking at once (the members of a cluster,
 * the replicas of a service) are each given a port of their own, though neither listens yet.
 */
const handedOut = new Set<number>();
const REMEMBERED = 4_096;
let handOutRange: Promise<{ low: number; high: number }> | undefined;

/**
 * A free TCP port for a server started next, one not handed out lately. It is chosen below the
 * kernel's ephemeral range: a port from that range (what the kernel answers to a listen on port 0)
 * can be taken by any outgoing connection on the machine before the server binds it, and on a
 * machine opening thousands of connections, as a test run does, sometimes is.
 */
export async function freePort(): Promise<number> {
  const { low, high } = await (handOutRange ??= portsToHandOut());
  for (;;) {
    const port = low < high ? low + Math.floor(Math.random() * (high - low)) : await kernelFreePort();
    if (handedOut.has(port)) continue;
    // Claimed before the check awaits, so that a caller asking meanwhile cannot choose it too.
    handedOut.add(port);
    if (!(await isPortFree(port))) {
      handedOut.delete(port);
      continue;
    }
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

/** The lowest port handed out: below it lie most services' usual ports. */
const LOWEST = 15_000;
/** Where the ephemeral range begins when the system does not say (Linux's default). */
const EPHEMERAL_LOW = 32_768;

/** The ports `freePort` chooses from, [low, high): none when the ephemeral range starts below LOWEST. */
async function portsToHandOut(): Promise<{ low: number; high: number }> {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '');
  const ephemeralLow = Number(range.trim().split(/\s+/)[0]) || EPHEMERAL_LOW;
  return { low: LOWEST, high: Math.min(ephemeralLow, EPHEMERAL_LOW) };
}

/** A port the kernel chose, from its ephemeral range. */
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
