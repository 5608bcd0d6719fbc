/**
 * The floor of one request of the agent path, measured in the run that compares a hub figure
 * with it: the bare node:http server of floor-server.ts (one `SELECT` per request) in a process
 * of its own, driven over kept-alive connections; its CPU and Postgres's per request.
 */
import { join } from 'node:path';
import type { BenchStack } from './bench-stack';
import { HttpClient } from './http-client';
import { cpuSeconds, startPortScript } from './service-process';

export interface FloorFigures {
  requests: number;
  /** The server's CPU per request (ms). */
  serverMs: number;
  /** Postgres's CPU per request (ms). */
  postgresMs: number;
}

export async function measureFloor(
  stack: BenchStack,
  requests: number,
  concurrency: number,
): Promise<FloorFigures> {
  const floor = await startPortScript(join(__dirname, 'floor-server.ts'), [stack.databaseUrl]);
  const client = new HttpClient(concurrency);
  try {
    const calls = Array.from({ length: requests }, () => ({ method: 'GET', path: '/' }));
    // Warmed up first, so the figure is the steady cost and not the JIT's.
    await client.all(floor.url, calls.slice(0, Math.ceil(requests / 10)), concurrency);
    const serverBefore = cpuSeconds(floor.pid);
    const postgresBefore = stack.cpuSeconds().postgres;
    await client.all(floor.url, calls, concurrency);
    return {
      requests,
      serverMs: ((cpuSeconds(floor.pid) - serverBefore) * 1000) / requests,
      postgresMs: ((stack.cpuSeconds().postgres - postgresBefore) * 1000) / requests,
    };
  } finally {
    client.close();
    await floor.stop();
  }
}
