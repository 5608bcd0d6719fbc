import { readFileSync } from 'node:fs';
import { freePort, isPortFree } from './free-port';

/** Where Linux's ephemeral range begins here: outgoing connections take their ports from it. */
const ephemeralLow = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

describe('freePort', () => {
  it('hands out free ports below the ephemeral range, none twice, though none is listened on yet', async () => {
    const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports.filter((port) => port >= ephemeralLow || port < 1024)).toEqual([]);
    expect(await Promise.all(ports.slice(0, 20).map(isPortFree))).toEqual(
      Array.from({ length: 20 }, () => true),
    );
  });
});
