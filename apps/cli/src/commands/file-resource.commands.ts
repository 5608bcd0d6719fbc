/**
 * Resources of an org published whole from a JSON file (`PUT` creates or replaces them), then
 * listed, shown and removed: `careen service …` and `careen deploypolicy …`.
 */
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { type Column } from '../output/output';
import { type CliServices, contextOf, type ExchangeCall, orgCommandContext } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';
import { readJsonObject } from './file-input';

type Schemas = Exchange.components['schemas'];

export interface FileResource<T> {
  /** The command group, e.g. `service`. */
  command: string;
  description: string;
  /** What one is called in messages, e.g. `service`. */
  noun: string;
  plural: string;
  /** The argument naming one, e.g. `id`. */
  key: string;
  keyRule: string;
  fileHelp: string;
  columns: readonly Column<T>[];
  /** The options of `list` that narrow it, each named after the query parameter it sets. */
  listFilters: { flag: string; help: string; query: string }[];
  /** Creates or replaces one from the file as written: the exchange checks it and names what is wrong. */
  publish(exchange: ExchangeCall, org: string, key: string, file: Record<string, unknown>): Promise<T>;
  list(
    exchange: ExchangeCall,
    org: string,
    filters: Record<string, string | undefined>,
  ): Promise<{ items: T[]; total: number }>;
  show(exchange: ExchangeCall, org: string, key: string): Promise<T>;
  remove(exchange: ExchangeCall, org: string, key: string): Promise<unknown>;
}

export const SERVICE_RESOURCE: FileResource<Schemas['ServiceResponse']> = {
  command: 'service',
  description: 'manage the services an org publishes',
  noun: 'service',
  plural: 'services',
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
  listFilters: [{ flag: '--url <url>', help: 'only versions of this service url', query: 'url' }],
  publish: (exchange, org, id, file) =>
    exchange((api) =>
      api.PUT('/v1/orgs/{org}/services/{id}', {
        params: { path: { org, id } },
        body: file as Schemas['PutServiceDto'],
      }),
    ),
  list: (exchange, org, filters) =>
    exchange((api) =>
      api.GET('/v1/orgs/{org}/services', { params: { path: { org }, query: { url: filters.url } } }),
    ),
  show: (exchange, org, id) =>
    exchange((api) => api.GET('/v1/orgs/{org}/services/{id}', { params: { path: { org, id } } })),
  remove: (exchange, org, id) =>
    exchange((api) => api.DELETE('/v1/orgs/{org}/services/{id}', { params: { path: { org, id } } })),
};

export const DEPLOYMENT_POLICY_RESOURCE: FileResource<Schemas['DeploymentPolicyResponse']> = {
  command: 'deploypolicy',
  description: "manage an org's deployment policies",
  noun: 'deployment policy',
  plural: 'deployment policies',
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
  listFilters: [],
  publish: (exchange, org, name, file) =>
    exchange((api) =>
      api.PUT('/v1/orgs/{org}/deployment-policies/{name}', {
        params: { path: { org, name } },
        body: file as Schemas['PutDeploymentPolicyDto'],
      }),
    ),
  list: (exchange, org) =>
    exchange((api) => api.GET('/v1/orgs/{org}/deployment-policies', { params: { path: { org } } })),
  show: (exchange, org, name) =>
    exchange((api) =>
      api.GET('/v1/orgs/{org}/deployment-policies/{name}', { params: { path: { org, name } } }),
    ),
  remove: (exchange, org, name) =>
    exchange((api) =>
      api.DELETE('/v1/orgs/{org}/deployment-policies/{name}', { params: { path: { org, name } } }),
    ),
};

export function registerFileResourceCommands<T extends object>(
  program: Command,
  services: CliServices,
  resource: FileResource<T>,
): Command {
  const group = program.command(resource.command).description(resource.description);
  const orgOption = [
    '--org <org>',
    `org of the ${resource.noun} (default: CAREEN_ORG, else your own org)`,
  ] as const;

  group
    .command('publish')
    .description(`create or replace a ${resource.noun} from a JSON file`)
    .argument(`<${resource.key}>`, resource.keyRule)
    .requiredOption('-f, --file <file>', resource.fileHelp)
    .option(...orgOption)
    .action(async (key: string, options: { file: string; org?: string }, command: Command) => {
      const context = contextOf(command, services);
      const body = await readJsonObject(options.file);
      const exchange = await context.exchange();
      const org = await context.org(exchange, options.org);
      context.printer.record(await resource.publish(exchange, org, key, body));
    });

  const list = group
    .command('list')
    .description(`list the ${resource.plural} of an org`)
    .option(...orgOption);
  for (const filter of resource.listFilters) list.option(filter.flag, filter.help);
  list.action(async (options: Record<string, string | undefined>, command: Command) => {
    const context = contextOf(command, services);
    const exchange = await context.exchange();
    const org = await context.org(exchange, options.org);
    const filters = Object.fromEntries(
      resource.listFilters.map((filter) => [filter.query, options[filter.query]]),
    );
    const answer = await resource.list(exchange, org, filters);
    context.printer.list(answer, resource.columns, `no ${resource.plural} in org "${org}"`);
  });

  group
    .command('show')
    .description(`show a ${resource.noun}`)
    .argument(`<${resource.key}>`, `${resource.noun} ${resource.key}`)
    .option(...orgOption)
    .action(async (key: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(await resource.show(exchange, org, key));
    });

  group
    .command('remove')
    .description(`remove a ${resource.noun}`)
    .argument(`<${resource.key}>`, `${resource.noun} ${resource.key}`)
    .option(...orgOption)
    .option(...YES_OPTION)
    .action(async (key: string, options: { org?: string; yes?: boolean }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      await removeAfterConfirmation(context, `${resource.noun} "${org}/${key}"`, options.yes, () =>
        resource.remove(exchange, org, key),
      );
    });
  return group;
}

export function registerServiceCommands(program: Command, services: CliServices): void {
  registerFileResourceCommands(program, services, SERVICE_RESOURCE);
}

export function registerDeployPolicyCommands(program: Command, services: CliServices): void {
  registerFileResourceCommands(program, services, DEPLOYMENT_POLICY_RESOURCE);
}
