/** `careen node register|list|show|remove`: the edge nodes of an org. */
import { type Command } from 'commander';
import { CliError } from '../cli-errors';
import { path } from '../http/exchange-client';
import { type Column } from '../output/output';
import { type CliServices, contextOf, orgCommandContext } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';
import { readJsonObject } from './file-input';

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

const NODE_COLUMNS: readonly Column<NodeAnswer>[] = [
  { header: 'ID', value: (node) => node.id },
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
  { header: 'UPDATED', value: (node) => node.updatedAt },
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
      context.printer.list(answer, NODE_COLUMNS, `no nodes${filtered} in org "${org}"`);
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
}
