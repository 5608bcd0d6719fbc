import { createLogger } from '@careen/telemetry';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { startSimulatedFleet } from './simulated-fleet';

describe('startSimulatedFleet', () => {
  let hub: Server;
  /** Where each node's requests came from, by the node its token request names. */
  const seenFrom = new Map<string, Set<string>>();
  let allSeen: () => void;
  const seen = new Promise<void>((resolve) => (allSeen = resolve));

  beforeAll(async () => {
    // Stands in for the exchange: it notes who asks for a token and is never ready to give one.
    hub = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const { node } = JSON.parse(body || '{}') as { node?: string };
        if (node) seenFrom.set(node, (seenFrom.get(node) ?? new Set()).add(request.socket.remoteAddress!));
        if (seenFrom.size === 3) allSeen();
        response.writeHead(503, { 'content-type': 'application/json' }).end('{}');
      });
    });
    hub.listen(0, '127.0.0.1');
    await once(hub, 'listening');
  });

  afterAll(() => new Promise((closed) => hub.close(closed)));

  it('connects each agent from the address given for its place in the fleet', async () => {
    const fleet = await startSimulatedFleet({
      exchangeUrl: `http://127.0.0.1:${(hub.address() as AddressInfo).port}`,
      org: 'acme',
      admin: { username: 'admin', password: 'unused' },
      nodes: 3,
      nodePrefix: 'src',
      registered: true,
      logger: createLogger('simulated-fleet-test', { level: 'fatal' }),
      sourceAddress: (i) => `127.77.0.${i + 1}`,
    });
    try {
      await seen;
    } finally {
      await fleet.stop();
    }
    expect(Object.fromEntries([...seenFrom].map(([node, from]) => [node, [...from]]))).toEqual({
      'src-0001': ['127.77.0.1'],
      'src-0002': ['127.77.0.2'],
      'src-0003': ['127.77.0.3'],
    });
  });
});
