/**
 * The deployment orchestrator, as `careen strategy|rollout|upgrade` reach it: --orchestrator-url,
 * else CAREEN_ORCHESTRATOR_URL, else http://127.0.0.1:8083, asked with the caller's exchange login.
 */
import { type DeploymentOrchestrator } from '@careen/api-client';
import { type Command } from 'commander';
import { serviceBaseUrl } from '../http/service-url';
import { type CliServices, serviceCommandContext } from './command-context';

export const DEFAULT_ORCHESTRATOR_URL = 'http://127.0.0.1:8083';
const SETTING = '--orchestrator-url or CAREEN_ORCHESTRATOR_URL';
const NAME = 'deployment orchestrator';

export const ORCHESTRATOR_URL_OPTION = [
  '--orchestrator-url <url>',
  `deployment orchestrator URL (default: CAREEN_ORCHESTRATOR_URL, else ${DEFAULT_ORCHESTRATOR_URL})`,
] as const;

export function orchestratorContext(command: Command, services: CliServices) {
  const flag = command.optsWithGlobals<{ orchestratorUrl?: string }>().orchestratorUrl;
  const url = serviceBaseUrl(NAME, flag ?? services.env.orchestratorUrl ?? DEFAULT_ORCHESTRATOR_URL);
  return serviceCommandContext<DeploymentOrchestrator.paths>(command, services, {
    name: NAME,
    url,
    setting: SETTING,
  });
}
