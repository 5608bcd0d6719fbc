/** The hub's HTTP services, in start order: the exchange first, since the others verify its tokens. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-root';

export interface HubService {
  name: string;
  portEnv: string;
  defaultPort: number;
}

export const HUB_SERVICES: readonly HubService[] = [
  { name: 'exchange', portEnv: 'CAREEN_EXCHANGE_PORT', defaultPort: 8080 },
  { name: 'agbot', portEnv: 'CAREEN_AGBOT_PORT', defaultPort: 8081 },
  { name: 'maintenance-session', portEnv: 'CAREEN_MAINTENANCE_SESSION_PORT', defaultPort: 8082 },
  { name: 'deployment-orchestrator', portEnv: 'CAREEN_DEPLOYMENT_ORCHESTRATOR_PORT', defaultPort: 8083 },
  { name: 'notifier', portEnv: 'CAREEN_NOTIFIER_PORT', defaultPort: 8084 },
];

export function serviceEntry(name: string): string {
  return join(REPO_ROOT, 'apps', name, 'src', 'main.ts');
}

/** The hub services whose sources exist in this checkout. */
export function installedHubServices(): HubService[] {
  return HUB_SERVICES.filter((service) => existsSync(serviceEntry(service.name)));
}

export function appInstalled(name: string): boolean {
  return existsSync(serviceEntry(name));
}
