/** `careen node register|list|show|remove|cordon|uncordon|history`: the edge nodes of an org. */
import { type Command } from 'commander';
import { CliError } from '../cli-errors';
import { path } from '../http/exchange-client';
import { type Column } from '../output/output';
import { type CliServices, contextOf, orgCommandContext } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';
import { readJsonObject } from './file-input';
import { HISTORY_COLUMNS, historyLimit, readHistory, type HistoryEntry } from './history';
import { since } from '../watch/rollout-screen';

interface NodeAnswer {
  org: string;
  id: string;
  name: string;
  owner: string | null;
  pattern: string | null;
  labels: Record<string, string>;
  tags: string[];
  rack: string | null;
  haGroup: string | null;
  schedulable: boolean;
  status: { lastHeartbeat?: string | null; agentVersion?: { package?: string | null } | null } | null;
  createdAt: string;
  updatedAt: string;
}

interface RegisteredAnswer {
  id: string;
  token?: string;
}

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

const nodeColumns = (now: Date): readonly Column<NodeAnswer>[] => [
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

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

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

  node
    .command('register')
    .description('register a node (or update it) and print its token once')
    .argument('<id>', "node id: letters, digits, '-' or '_'")
    .option('--token <token>', 'the node token, 8-256 characters (default: one made by the exchange)')
    .option('--name <name>', 'name for people (default: the id)')
    .option('--pattern <pattern>', 'the pattern the node runs: "pattern" or "org/pattern"')
    .option('--policy-file <file>', 'the node policy, as JSON: {"properties": [...], "constraints": [...]}')
    .option('--label <key=value>', 'a label; repeat for several', collect, [])
    .option('--tag <tag>', 'a tag; repeat for several', collect, [])
    .option('--rack <rack>', 'the rack the node is in')
    .option(...ORG_OPTION)
    .action(async (id: string, options: RegisterOptions, command: Command) => {
      const context = contextOf(command, services);
      const labels = parseLabels(options.label);
      const policy = options.policyFile ? await readJsonObject(options.policyFile) : undefined;
      const client = await context.client();
      const org = await context.org(client, options.org);
      const answer = await client.put<RegisteredAnswer>(path`/v1/orgs/${org}/nodes/${id}`, {
        token: options.token,
        name: options.name,
        pattern: options.pattern,
        policy,
        labels: options.label.length > 0 ? labels : undefined,
        tags: options.tag.length > 0 ? options.tag : undefined,
        rack: options.rack,
      });
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
      collect,
      [],
    )
    .option(...ORG_OPTION)
    .action(async (options: { org?: string; haGroup?: string; label: string[] }, command: Command) => {
      const { context, client, org } = await orgCommandContext(command, services, options.org);
      const query = new URLSearchParams();
      if (options.haGroup) query.append('haGroup', options.haGroup);
      for (const label of options.label) query.append('label', label);
      const search = query.toString() ? `?${query.toString()}` : '';
      const answer = await client.get<{ items: NodeAnswer[]; total: number }>(
        `${path`/v1/orgs/${org}/nodes`}${search}`,
      );
      const filtered = search ? ' matching the filters' : '';
      context.printer.list(answer, nodeColumns(services.now()), `no nodes${filtered} in org "${org}"`);
    });

  node
    .command('show')
    .description('show a node')
    .argument('<id>', 'node id')
    .option(...ORG_OPTION)
    .action(async (id: string, options: { org?: string }, command: Command) => {
      const { context, client, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(await client.get<NodeAnswer>(path`/v1/orgs/${org}/nodes/${id}`));
    });

  node
    .command('remove')
    .description('remove a node')
    .argument('<id>', 'node id')
    .option(...ORG_OPTION)
    .option(...YES_OPTION)
    .action(async (id: string, options: { org?: string; yes?: boolean }, command: Command) => {
      const { context, client, org } = await orgCommandContext(command, services, options.org);
      const what = `node "${org}/${id}"`;
      await removeAfterConfirmation(context, client, what, path`/v1/orgs/${org}/nodes/${id}`, options.yes);
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
        const { context, client, org } = await orgCommandContext(command, services, options.org);
        const updated = await client.patch<NodeAnswer>(path`/v1/orgs/${org}/nodes/${id}`, { schedulable });
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
      const { context, client, org } = await orgCommandContext(command, services, options.org);
      const filter = options.nmp ? `?nmp=${encodeURIComponent(options.nmp)}` : '';
      const items = await readHistory(
        client,
        `${path`/v1/orgs/${org}/nodes/${id}/history`}${filter}`,
        options.limit,
      );
      context.printer.list<HistoryEntry>(
        { items, total: items.length },
        HISTORY_COLUMNS,
        `no history for node "${org}/${id}"`,
      );
    });
}
