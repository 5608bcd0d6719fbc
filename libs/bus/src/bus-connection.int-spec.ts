import { STREAMS } from '@careen/contracts';
import { findNatsServer, freePort, startNatsServer, type RunningNatsServer } from '@careen/devstack';
import { eventually } from '@careen/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, type BusConnection } from './bus-connection';
import { ensureStreams } from './stream-provisioner';

describe('bus connection and streams', () => {
  let storeDir: string;
  let port: number;
  let server: RunningNatsServer;
  const binary = () => {
    const found = findNatsServer({
      explicitPath: process.env.CAREEN_NATS_SERVER_BIN,
      path: process.env.PATH,
    });
    if (!found) throw new Error('nats-server not found');
    return found;
  };

  beforeAll(async () => {
    storeDir = mkdtempSync(join(tmpdir(), 'careen-bus-conn-'));
    port = await freePort();
    server = await startNatsServer({ binary: binary(), storeDir, port });
  });

  afterAll(async () => {
    await server.stop();
    rmSync(storeDir, { recursive: true, force: true });
  });

  it('provisions streams idempotently, from several connections at once', async () => {
    const connections = await Promise.all(
      [1, 2, 3].map((n) => connectBus({ url: server.url, name: `provisioner-${n}` })),
    );
    await Promise.all(
      connections.map((bus) => ensureStreams(bus.jsm, [STREAMS.changes, STREAMS.deadLetters])),
    );
    await ensureStreams(connections[0]!.jsm, [STREAMS.changes, STREAMS.deadLetters]);

    const names: string[] = [];
    for await (const stream of connections[0]!.jsm.streams.list()) names.push(stream.config.name);
    expect(names.sort()).toEqual(['CAREEN_CHANGES', 'CAREEN_DLQ']);
    const info = await connections[0]!.jsm.streams.info(STREAMS.changes.name);
    expect(info.config.duplicate_window).toBe(10 * 60 * 1e9);
    await Promise.all(connections.map((bus) => bus.close()));
  });

  it('updates a stream whose subjects changed, keeping its messages', async () => {
    const bus = await connectBus({ url: server.url, name: 'updater' });
    await ensureStreams(bus.jsm, [{ name: 'CAREEN_TEST', subjects: ['careen.test.a.>'] }]);
    await bus.js.publish('careen.test.a.one', new TextEncoder().encode('{}'));
    await ensureStreams(bus.jsm, [{ name: 'CAREEN_TEST', subjects: ['careen.test.a.>', 'careen.test.b.>'] }]);

    const info = await bus.jsm.streams.info('CAREEN_TEST');
    expect(info.config.subjects).toEqual(['careen.test.a.>', 'careen.test.b.>']);
    expect(info.state.messages).toBe(1);
    await bus.close();
  });

  it("creates a stream with its limits, fills in a missing one and keeps an operator's own", async () => {
    const bus = await connectBus({ url: server.url, name: 'limits' });
    const spec = {
      name: 'CAREEN_LIMITS',
      subjects: ['careen.limits.>'],
      maxAgeMs: 7 * 86_400_000,
      maxBytes: 1 << 20,
    };
    await ensureStreams(bus.jsm, [spec]);
    const limits = async () => {
      const { config } = await bus.jsm.streams.info(spec.name);
      return { maxAgeDays: config.max_age / 86_400e9, maxBytes: config.max_bytes };
    };
    expect(await limits()).toEqual({ maxAgeDays: 7, maxBytes: 1 << 20 });
    // An operator raised the age and lifted the size limit on the server. The age stays; no size
    // limit cannot be told from a stream made before limits existed, so it gets the default again.
    await bus.jsm.streams.update(spec.name, { max_age: 30 * 86_400e9, max_bytes: -1 });
    await ensureStreams(bus.jsm, [spec]);
    expect(await limits()).toEqual({ maxAgeDays: 30, maxBytes: 1 << 20 });
    await bus.jsm.streams.update(spec.name, { max_bytes: 4 << 20 });
    await ensureStreams(bus.jsm, [spec]);
    expect(await limits()).toEqual({ maxAgeDays: 30, maxBytes: 4 << 20 });
    await bus.close();
  });

  it('reconnects by itself when the server comes back, and publishing resumes', async () => {
    const bus: BusConnection = await connectBus({ url: server.url, name: 'reconnecting' });
    await ensureStreams(bus.jsm, [STREAMS.changes]);
    await server.stop();
    await eventually(() => expect(bus.isConnected()).toBe(false));

    server = await startNatsServer({ binary: binary(), storeDir, port });

    await eventually(() => expect(bus.isConnected()).toBe(true), { timeoutMs: 15_000 });
    const ack = await bus.js.publish('careen.changes.acme.org.after-restart', new TextEncoder().encode('{}'));
    expect(ack.stream).toBe(STREAMS.changes.name);
    await bus.close();
  });
});
