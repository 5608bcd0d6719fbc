/** Every hub service in this process, on one Postgres and NATS, each given what it needs of the others. */
import { agbotService } from '@careen/agbot/src/agbot.service';
import { deploymentOrchestratorService } from '@careen/deployment-orchestrator/src/deployment-orchestrator.service';
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { maintenanceSessionService } from '@careen/maintenance-session/src/maintenance-session.service';
import { notifierService } from '@careen/notifier/src/notifier.service';
import { startServiceInProcess, type InProcessInfra } from '@careen/service';
import { ROOT_PASSWORD } from '@careen/testing';

/** Each service's URL, by its name. */
export async function startAllServices(infra: InProcessInfra): Promise<Record<string, string>> {
  const exchange = await startServiceInProcess(exchangeService, infra, {
    CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
  });
  const hub = { CAREEN_EXCHANGE_URL: exchange.url };
  const agbot = await startServiceInProcess(agbotService, infra, {
    ...hub,
    CAREEN_AGBOT_EXCHANGE_PASSWORD: ROOT_PASSWORD,
  });
  const [maintenance, orchestrator, notifier] = await Promise.all([
    startServiceInProcess(maintenanceSessionService, infra, {
      ...hub,
      CAREEN_AGBOT_URL: agbot.url,
      CAREEN_MAINTENANCE_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    }),
    startServiceInProcess(deploymentOrchestratorService, infra, {
      ...hub,
      CAREEN_AGBOT_URL: agbot.url,
      CAREEN_ORCHESTRATOR_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    }),
    startServiceInProcess(notifierService, infra, {
      ...hub,
      CAREEN_NOTIFIER_EXCHANGE_PASSWORD: ROOT_PASSWORD,
    }),
  ]);
  return {
    exchange: exchange.url,
    agbot: agbot.url,
    'maintenance-session': maintenance.url,
    'deployment-orchestrator': orchestrator.url,
    notifier: notifier.url,
  };
}
