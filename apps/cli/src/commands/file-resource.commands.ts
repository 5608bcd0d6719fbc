/**
 * Resources of an org published whole from a JSON file (`PUT` creates or replaces them), then
 * listed, shown and removed: `careen service …` and `careen deploypolicy …`.
 */
import { type Command } from 'commander';
import { path } from '../http/exchange-client';
import { type Column } from '../output/output';
import { type CliServices, contextOf, orgCommandContext } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';
import { readJsonObject } from './file-input';

interface FileResource<T> {
  /** The command group, e.g. `service`. */
  command: string;
  description: string;
  /** What one is called in messages, e.g. `service`. */
  noun: string;
  plural: string;
  /** The route under /v1/orgs/{org}/, e.g. `services`. */
  route: string;
  /** The argument naming one, e.g. `id`. */
  key: string;
  keyRule: string;
  fileHelp: string;
  columns: readonly Column<T>[];
}

interface ServiceAnswer {
  org: string;
  id: string;
  url: string;
  version: string;
  arch: string;
  runtime: Record<string, unknown>;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}

interface DeploymentPolicyAnswer {
  org: string;
  name: string;
  description: string | null;
  project: string;
  service: { org: string; url: string; versionRange: string };
  properties: unknown[];
  constraints: string[];
  placement: { mode: string; replicas?: number };
  createdAt: string;
  updatedAt: string;
}

export const SERVICE_RESOURCE: FileResource<ServiceAnswer> = {
  command: 'service',
  description: 'manage the services an org publishes',
  noun: 'service',
  plural: 'services',
  route: 'services',
  key: 'id',
  keyRule: "service id: letters, digits, '-' or '_'",
  fileHelp: 'the service, as JSON: {"url", "version", "arch", "runtime", "description"}',
  columns: [
    { header: 'ID', value: (service) => service.id },
    { header: 'URL', value: (service) => service.url },
    { header: 'VERSION', value: (service) => service.version },
    { header: 'ARCH', value: (service) => service.arch },
    { header: 'UPDATED', value: (service) => service.updatedAt },
  ],
};

export const DEPLOYMENT_POLICY_RESOURCE: FileResource<DeploymentPolicyAnswer> = {
  command: 'deploypolicy',
  description: "manage an org's deployment policies",
  noun: 'deployment policy',
  plural: 'deployment policies',
  route: 'deployment-policies',
  key: 'name',
  keyRule: "policy name: letters, digits, '-' or '_'",
  fileHelp:
    'the policy, as JSON: {"project", "service": {"org", "url", "versionRange"}, "properties", "constraints", "placement", "description"}',
  columns: [
    { header: 'NAME', value: (policy) => policy.name },
    { header: 'PROJECT', value: (policy) => policy.project },
    {
      header: 'SERVICE',
      value: (policy) => `${policy.service.org}/${policy.service.url} ${policy.service.versionRange}`,
    },
    {
      header: 'PLACEMENT',
      value: (policy) =>
        policy.placement.mode === 'replicas'
          ? `replicas: ${policy.placement.replicas}`
          : policy.placement.mode,
    },
    { header: 'UPDATED', value: (policy) => policy.updatedAt },
  ],
};

export function registerFileResourceCommands<T extends object>(
  program: Command,
  services: CliServices,
  resource: FileResource<T>,
  listFilters: { flag: string; help: string; query: string }[] = [],
): void {
  const group = program.command(resource.command).description(resource.description);
  const orgOption = [
    '--org <org>',
    `org of the ${resource.noun} (default: CAREEN_ORG, else your own org)`,
  ] as const;
  const one = (org: string, key: string) => `${path`/v1/orgs/${org}`}/${resource.route}${path`/${key}`}`;

  group
    .command('publish')
    .description(`create or replace a ${resource.noun} from a JSON file`)
    .argument(`<${resource.key}>`, resource.keyRule)
    .requiredOption('-f, --file <file>', resource.fileHelp)
    .option(...orgOption)
    .action(async (key: string, options: { file: string; org?: string }, command: Command) => {
      const context = contextOf(command, services);
      const body = await readJsonObject(options.file);
      const client = await context.client();
      const org = await context.org(client, options.org);
      context.printer.record(await client.put<T>(one(org, key), body));
    });

  const list = group
    .command('list')
    .description(`list the ${resource.plural} of an org`)
    .option(...orgOption);
  for (const filter of listFilters) list.option(filter.flag, filter.help);
  list.action(async (options: Record<string, string | undefined>, command: Command) => {
    const context = contextOf(command, services);
    const client = await context.client();
    const org = await context.org(client, options.org);
    const query = new URLSearchParams();
    for (const filter of listFilters) {
      const value = options[filter.query];
      if (value !== undefined) query.append(filter.query, value);
    }
    const search = query.toString() ? `?${query.toString()}` : '';
    const answer = await client.get<{ items: T[]; total: number }>(
      `${path`/v1/orgs/${org}`}/${resource.route}${search}`,
    );
    context.printer.list(answer, resource.columns, `no ${resource.plural} in org "${org}"`);
  });

  group
    .command('show')
    .description(`show a ${resource.noun}`)
    .argument(`<${resource.key}>`, `${resource.noun} ${resource.key}`)
    .option(...orgOption)
    .action(async (key: string, options: { org?: string }, command: Command) => {
      const { context, client, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(await client.get<T>(one(org, key)));
    });

  group
    .command('remove')
    .description(`remove a ${resource.noun}`)
    .argument(`<${resource.key}>`, `${resource.noun} ${resource.key}`)
    .option(...orgOption)
    .option(...YES_OPTION)
    .action(async (key: string, options: { org?: string; yes?: boolean }, command: Command) => {
      const { context, client, org } = await orgCommandContext(command, services, options.org);
      const what = `${resource.noun} "${org}/${key}"`;
      await removeAfterConfirmation(context, client, what, one(org, key), options.yes);
    });
}

export function registerServiceCommands(program: Command, services: CliServices): void {
  registerFileResourceCommands(program, services, SERVICE_RESOURCE, [
    { flag: '--url <url>', help: 'only versions of this service url', query: 'url' },
  ]);
}

export function registerDeployPolicyCommands(program: Command, services: CliServices): void {
  registerFileResourceCommands(program, services, DEPLOYMENT_POLICY_RESOURCE);
}
