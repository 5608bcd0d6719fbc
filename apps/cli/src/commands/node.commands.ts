/** `careen node register|list|show|remove|cordon|uncordon|history`: the edge nodes of an org. */
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { CliError } from '../cli-errors';
import { type Column } from '../output/output';
import { type CliServices, contextOf, orgCommandContext } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';
import { readJsonObject } from './file-input';
import { HISTORY_COLUMNS, historyLimit, readHistory, type HistoryEntry } from './history';
import { since } from '../watch/rollout-screen';
import { registerBusyCommands } from './disruption.commands';
import { repeated } from './repeated-option';

type NodeView = Exchange.components['schemas']['NodeResponse'];
type NodePolicy = Exchange.components['schemas']['PolicyDto'];

interface RegisterOptions {
  org?: string;
  token?: string;
  name?: string;
  pattern?: string;
  policyFile?: string;
  label: string[];
  tag: string[];
  rack?: string;
}

const nodeColumns = (now: Date): readonly Column<NodeView>[] => [
  { header: 'ID', value: (node) => node.id },
  { header: 'VERSION', value: (node) => node.status?.agentVersion?.package },
  { header: 'LAST SEEN', value: (node) => since(node.status?.lastHeartbeat, now) },
  { header: 'NAME', value: (node) => node.name },
  { header: 'PATTERN', value: (node) => node.pattern },
  { header: 'HA GROUP', value: (node) => node.haGroup },
  { header: 'RACK', value: (node) => node.rack },
  {
    header: 'LABELS',
    value: (node) =>
      Object.entries(node.labels)
        .map(([key, value]) => `${key}=${value}`)
        .join(','),
  },
  { header: 'SCHEDULABLE', value: (node) => node.schedulable },
];

const ORG_OPTION = ['--org <org>', 'org of the node (default: CAREEN_ORG, else your own org)'] as const;

/** `k=v` pairs to a label map; a CliError naming the flag for anything else. */
export function parseLabels(pairs: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new CliError(`--label must be key=value, not "${pair}"`);
    labels[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return labels;
}

export function registerNodeCommands(program: Command, services: CliServices): void {
  const node = program.command('node').description("manage an org's nodes");
  registerBusyCommands(node, services);

  node
    .command('register')
    .description('register a node (or update it) and print its token once')
    .argument('<id>', "node id: letters, digits, '-' or '_'")
    .option('--token <token>', 'the node token, 8-256 characters (default: one made by the exchange)')
    .option('--name <name>', 'name for people (default: the id)')
    .option('--pattern <pattern>', 'the pattern the node runs: "pattern" or "org/pattern"')
    .option('--policy-file <file>', 'the node policy, as JSON: {"properties": [...], "constraints": [...]}')
    .option('--label <key=value>', 'a label; repeat for several', repeated, [])
    .option('--tag <tag>', 'a tag; repeat for several', repeated, [])
    .option('--rack <rack>', 'the rack the node is in')
    .option(...ORG_OPTION)
    .action(async (id: string, options: RegisterOptions, command: Command) => {
      const context = contextOf(command, services);
      const labels = parseLabels(options.label);
      // The file goes as written: the exchange checks it and names what is wrong.
      const policy = options.policyFile
        ? ((await readJsonObject(options.policyFile)) as NodePolicy)
        : undefined;
      const exchange = await context.exchange();
      const org = await context.org(exchange, options.org);
      const answer = await exchange((api) =>
        api.PUT('/v1/orgs/{org}/nodes/{id}', {
          params: { path: { org, id } },
          body: {
            token: options.token,
            name: options.name,
            pattern: options.pattern,
            policy,
            labels: options.label.length > 0 ? labels : undefined,
            tags: options.tag.length > 0 ? options.tag : undefined,
            rack: options.rack,
          },
        }),
      );
      const sentence = answer.token
        ? `registered node "${org}/${id}"\ntoken: ${answer.token}\n(the token is not shown again: keep it for the node's agent)`
        : `registered node "${org}/${id}"; its token is unchanged`;
      context.printer.result({ org, ...answer }, sentence);
    });

  node
    .command('list')
    .description('list the nodes of an org')
    .option('--ha-group <group>', 'only the members of this HA group')
    .option(
      '--label <key=value>',
      'only nodes with this label (or `key`: with it at all); repeat to require all',
      repeated,
      [],
    )
    .option(...ORG_OPTION)
    .action(async (options: { org?: string; haGroup?: string; label: string[] }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const answer = await exchange((api) =>
        api.GET('/v1/orgs/{org}/nodes', {
          params: { path: { org }, query: { haGroup: options.haGroup || undefined, label: options.label } },
        }),
      );
      const filtered = options.haGroup || options.label.length > 0 ? ' matching the filters' : '';
      context.printer.list(answer, nodeColumns(services.now()), `no nodes${filtered} in org "${org}"`);
    });

  node
    .command('show')
    .description('show a node')
    .argument('<id>', 'node id')
    .option(...ORG_OPTION)
    .action(async (id: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) => api.GET('/v1/orgs/{org}/nodes/{id}', { params: { path: { org, id } } })),
      );
    });

  node
    .command('remove')
    .description('remove a node')
    .argument('<id>', 'node id')
    .option(...ORG_OPTION)
    .option(...YES_OPTION)
    .action(async (id: string, options: { org?: string; yes?: boolean }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      await removeAfterConfirmation(context, `node "${org}/${id}"`, options.yes, () =>
        exchange((api) => api.DELETE('/v1/orgs/{org}/nodes/{id}', { params: { path: { org, id } } })),
      );
    });

  for (const [name, schedulable, what] of [
    ['cordon', false, 'keep new workloads off a node (those it runs stay)'],
    ['uncordon', true, 'let the agbot place workloads on a node again'],
  ] as const) {
    node
      .command(name)
      .description(what)
      .argument('<id>', 'node id')
      .option(...ORG_OPTION)
      .action(async (id: string, options: { org?: string }, command: Command) => {
        const { context, exchange, org } = await orgCommandContext(command, services, options.org);
        const updated = await exchange((api) =>
          api.PATCH('/v1/orgs/{org}/nodes/{id}', { params: { path: { org, id } }, body: { schedulable } }),
        );
        context.printer.result(
          updated,
          schedulable
            ? `node "${org}/${id}" takes workloads again`
            : `node "${org}/${id}" is cordoned: no new workloads`,
        );
      });
  }

  node
    .command('history')
    .description('every status the node reported for management policies, newest first')
    .argument('<id>', 'node id')
    .option('--nmp <name>', 'only this management policy')
    .option('--limit <n>', 'show at most this many entries', historyLimit, 50)
    .option(...ORG_OPTION)
    .action(async (id: string, options: { org?: string; nmp?: string; limit: number }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const items = await readHistory(options.limit, (page) =>
        exchange((api) =>
          api.GET('/v1/orgs/{org}/nodes/{id}/history', {
            params: { path: { org, id }, query: { ...page, nmp: options.nmp || undefined } },
          }),
        ),
      );
      context.printer.list<HistoryEntry>(
        { items, total: items.length },
        HISTORY_COLUMNS,
        `no history for node "${org}/${id}"`,
      );
    });
}
