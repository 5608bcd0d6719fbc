/**
 * What `careen deploycheck` sends and where: its options read into the agbot's request body,
 * the service reference parsed, the agbot URL resolved. Pure, so every rule is tested without I/O.
 */
import { type Agbot } from '@careen/api-client';
import { type CliEnv } from '../cli-env';
import { CliError } from '../cli-errors';
import { serviceBaseUrl } from '../http/service-url';

export const DEFAULT_AGBOT_URL = 'http://127.0.0.1:8081';

export interface DeployCheckOptions {
  policy?: string;
  service?: string;
  haGroup?: string;
  node?: string;
  checkHa?: boolean;
}

/** A service reference as parsed: the org always named (the document lets the agbot default it). */
export interface ServiceRef {
  org: string;
  url: string;
  version?: string;
}

export type DeployCheckBody = Agbot.components['schemas']['DeployCheckDto'];

/**
 * `org/url[@version]`, or `url[@version]` in `defaultOrg`. The org is what precedes the first
 * `/`; the version what follows the last `@`.
 */
export function parseServiceRef(ref: string, defaultOrg: string): ServiceRef {
  const at = ref.lastIndexOf('@');
  const name = at === -1 ? ref : ref.slice(0, at);
  const version = at === -1 ? undefined : ref.slice(at + 1);
  const slash = name.indexOf('/');
  const org = slash === -1 ? defaultOrg : name.slice(0, slash);
  const url = slash === -1 ? name : name.slice(slash + 1);
  if (org === '' || url === '' || version === '') {
    throw new CliError(`invalid service "${ref}": expected org/url or org/url@version`);
  }
  return version === undefined ? { org, url } : { org, url, version };
}

export function deployCheckBody(options: DeployCheckOptions, org: string): DeployCheckBody {
  if ((options.policy === undefined) === (options.service === undefined)) {
    throw new CliError('give exactly one of --policy and --service', [], 2);
  }
  if (options.haGroup !== undefined && options.node !== undefined) {
    throw new CliError('give at most one of --ha-group and --node', [], 2);
  }
  return {
    ...(options.policy !== undefined ? { deploymentPolicy: options.policy } : {}),
    ...(options.service !== undefined ? { service: parseServiceRef(options.service, org) } : {}),
    checkHA: options.checkHa ?? false,
    ...(options.haGroup !== undefined ? { haGroup: options.haGroup } : {}),
    ...(options.node !== undefined ? { node: options.node } : {}),
  };
}

/** --agbot-url, then CAREEN_AGBOT_URL, then the default; `http(s)://host[:port]`, no trailing slash. */
export function resolveAgbotUrl(flag: string | undefined, env: Pick<CliEnv, 'agbotUrl'>): string {
  return serviceBaseUrl('agbot', flag ?? env.agbotUrl ?? DEFAULT_AGBOT_URL);
}
