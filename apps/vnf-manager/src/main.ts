/** `careen-vnf-manager`: the reference VNF manager for one project (stops cleanly on SIGTERM or SIGINT). */
import { connectBus } from '@careen/bus';
import { ConfigError, ExchangeClient, exchangeCredentials, loadConfig } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { ReferenceVnfManager } from './reference-vnf-manager';
import { VnfManagerConfig } from './vnf-manager.config';

async function main(): Promise<void> {
  const config = loadConfig(VnfManagerConfig);
  const logger = createLogger(`vnf-manager-${config.CAREEN_VNFM_PROJECT}`, {
    level: config.CAREEN_LOG_LEVEL,
  });
  const credentials =
    config.CAREEN_VNFM_EXCHANGE_USER &&
    exchangeCredentials(config.CAREEN_VNFM_EXCHANGE_USER, config.CAREEN_VNFM_EXCHANGE_PASSWORD);
  const consumer = config.CAREEN_VNFM_NATS_CONSUMER;
  if (config.CAREEN_VNFM_FOLLOW === 'nats' && !consumer)
    throw new ConfigError([
      'CAREEN_VNFM_FOLLOW=nats needs CAREEN_VNFM_NATS_CONSUMER (and CAREEN_NATS_CREDS)',
    ]);
  const bus = await connectBus({
    url: config.CAREEN_NATS_URL,
    name: 'vnf-manager',
    logger,
    credsFile: config.CAREEN_NATS_CREDS,
    // A subscription's user receives replies only under its consumer's inbox prefix.
    inboxPrefix: consumer && `_INBOX_${consumer}`,
  });
  const manager = new ReferenceVnfManager({
    bus,
    project: config.CAREEN_VNFM_PROJECT,
    follow:
      config.CAREEN_VNFM_FOLLOW === 'webhook'
        ? {
            via: 'webhook',
            port: config.CAREEN_VNFM_WEBHOOK_PORT,
            host: '0.0.0.0',
            secret: config.CAREEN_VNFM_WEBHOOK_SECRET,
          }
        : config.CAREEN_VNFM_FOLLOW === 'nats'
          ? { via: 'nats', consumer: consumer! }
          : { via: 'bus' },
    replyVia: config.CAREEN_VNFM_REPLY_VIA,
    exchange:
      credentials && config.CAREEN_VNFM_DEPLOYMENT_POLICY
        ? {
            client: new ExchangeClient(config.CAREEN_EXCHANGE_URL, credentials),
            org: credentials.org,
            deploymentPolicy: config.CAREEN_VNFM_DEPLOYMENT_POLICY,
          }
        : undefined,
    observe: (event, reply) =>
      logger.info(
        { session: event.session_id, state: event.state, host: event.host, reply: reply?.state },
        'event handled',
      ),
    logger,
  });
  const webhookUrl = await manager.start();
  logger.info(
    {
      project: config.CAREEN_VNFM_PROJECT,
      follow: config.CAREEN_VNFM_FOLLOW,
      webhookUrl,
      replyVia: config.CAREEN_VNFM_REPLY_VIA,
    },
    'following maintenance events',
  );
  const stop = async () => {
    await manager.stop();
    await bus.close();
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
