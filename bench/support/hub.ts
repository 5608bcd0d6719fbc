/** What the benchmarks that run a hub share: its exchange and agbot. */
import { type BenchStack } from './bench-stack';
import { startServiceProcess, type ServiceProcess } from './service-process';

/**
 * Starts the exchange (with `rootPassword` for root) and an agbot that signs in as root, each
 * in its own process on the stack; each is pushed onto `services` as soon as it runs, so the
 * caller stops whatever started even when the next one fails.
 */
export async function startExchangeAndAgbot(
  stack: BenchStack,
  rootPassword: string,
  services: ServiceProcess[],
): Promise<{ exchange: ServiceProcess; agbot: ServiceProcess }> {
  const hub = { CAREEN_DATABASE_URL: stack.databaseUrl, CAREEN_NATS_URL: stack.natsUrl };
  const exchange = await startServiceProcess('exchange', { ...hub, CAREEN_ROOT_PASSWORD: rootPassword });
  services.push(exchange);
  const agbot = await startServiceProcess('agbot', {
    ...hub,
    CAREEN_EXCHANGE_URL: exchange.url,
    CAREEN_AGBOT_EXCHANGE_PASSWORD: rootPassword,
  });
  services.push(agbot);
  return { exchange, agbot };
}
