/**
 * What the agent-rollout tests stand on: the exchange and an agbot in this process, the org
 * `acme` with its admin `ada`, and agent packages 1.0.0 and 2.0.0 published. Fleets of
 * simulated agents are started by each test, with its own settings.
 */
import { type AgbotConfig } from '@careen/agbot/src/agbot.config';
import { agbotService } from '@careen/agbot/src/agbot.service';
import { buildPackage } from '@careen/agent/src/testing/agent-package.fixture';
import { type ExchangeConfig } from '@careen/exchange/src/exchange.config';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, http, type Credentials, type HttpResult } from '@careen/testing';

const ROOT_PASSWORD = 'root-password-1';
export const HUB_ROOT = basic('root', 'root', ROOT_PASSWORD);
export const ORG_ADMIN = { username: 'ada', password: 'ada-password' };
export const ACME_ADMIN = basic('acme', ORG_ADMIN.username, ORG_ADMIN.password);

export interface RolloutHub {
  exchange: InProcessService<ExchangeConfig>;
  agbot: InProcessService<AgbotConfig>;
  /** A call to the exchange, as acme's admin unless told otherwise. */
  call(method: string, path: string, body?: unknown, auth?: Credentials): Promise<HttpResult>;
  close(): Promise<void>;
}

export async function startRolloutHub(
  infra: { databaseUrl: string; natsUrl: string },
  agbotEnv: Record<string, string> = {},
): Promise<RolloutHub> {
  const exchange = await startServiceInProcess(exchangeService, infra, {
    CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
  });
  const agbot = await startServiceInProcess(agbotService, infra, {
    CAREEN_EXCHANGE_URL: exchange.url,
    CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    CAREEN_UPGRADE_LEASE_SECONDS: '30',
    ...agbotEnv,
  });
  const call = (method: string, path: string, body?: unknown, auth: Credentials = ACME_ADMIN) =>
    http(exchange.url, method, path, { auth, body });
  const expectStatus = async (answer: Promise<{ status: number }>, status: number) => {
    const { status: got } = await answer;
    if (got !== status) throw new Error(`setting up the hub: expected ${status}, got ${got}`);
  };
  await expectStatus(call('POST', '/v1/orgs', { id: 'acme' }, HUB_ROOT), 201);
  await expectStatus(call('POST', '/v1/orgs/acme/users', { ...ORG_ADMIN, role: 'orgAdmin' }, HUB_ROOT), 201);
  for (const version of ['1.0.0', '2.0.0']) {
    const published = http(exchange.url, 'POST', '/v1/agent-packages', {
      auth: HUB_ROOT,
      rawBody: await buildPackage({ version }),
      headers: { 'content-type': 'application/gzip' },
    });
    await expectStatus(published, 201);
  }
  return {
    exchange,
    agbot,
    call,
    close: async () => {
      await agbot.close();
      await exchange.close();
    },
  };
}
