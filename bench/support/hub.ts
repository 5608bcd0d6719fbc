/** What the benchmarks that run a hub share: its exchange (one replica or several) and agbot. */
import { startTcpProxy, type TcpProxy } from '@careen/testing';
import { type BenchStack } from './bench-stack';
import { startServiceProcess, type ServiceProcess } from './service-process';

export interface BenchHub {
  /** The first exchange replica; with one replica, the exchange. */
  exchange: ServiceProcess;
  exchanges: ServiceProcess[];
  /** Where clients reach the exchange: its own URL, or a round-robin proxy in front of the replicas. */
  exchangeUrl: string;
  agbot: ServiceProcess;
  /** Closes the proxy, if any (the processes are in `services`). */
  close(): Promise<void>;
}

/**
 * Starts `exchangeReplicas` exchanges (with `rootPassword` for root), behind a round-robin TCP
 * proxy when there are several (as a Kubernetes Service puts them), and an agbot that signs in
 * as root through the same address, each in its own process on the stack; each is pushed onto
 * `services` as soon as it runs, so the caller stops whatever started even when the next one
 * fails.
 */
export async function startExchangeAndAgbot(
  stack: BenchStack,
  rootPassword: string,
  services: ServiceProcess[],
  exchangeReplicas = 1,
): Promise<BenchHub> {
  const hub = { CAREEN_DATABASE_URL: stack.databaseUrl, CAREEN_NATS_URL: stack.natsUrl };
  const exchanges: ServiceProcess[] = [];
  for (let replica = 0; replica < exchangeReplicas; replica++) {
    const exchange = await startServiceProcess('exchange', { ...hub, CAREEN_ROOT_PASSWORD: rootPassword });
    services.push(exchange);
    exchanges.push(exchange);
  }
  const [firstExchange] = exchanges;
  if (!firstExchange) throw new Error(`an exchange replica or more is needed, not ${exchangeReplicas}`);
  let proxy: TcpProxy | undefined;
  if (exchanges.length > 1)
    proxy = await startTcpProxy(exchanges.map((exchange) => Number(new URL(exchange.url).port)));
  const exchangeUrl = proxy?.url ?? firstExchange.url;
  const agbot = await startServiceProcess('agbot', {
    ...hub,
    CAREEN_EXCHANGE_URL: exchangeUrl,
    CAREEN_AGBOT_EXCHANGE_PASSWORD: rootPassword,
  });
  services.push(agbot);
  return { exchange: firstExchange, exchanges, exchangeUrl, agbot, close: async () => proxy?.close() };
}
