/** Where each hub service's sources are, and which of them this checkout has. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HUB_SERVICES, type HubService } from '@careen/devstack';
import { REPO_ROOT } from './repo-root';

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
