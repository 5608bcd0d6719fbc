/**
 * `careen nmp new|publish|list|show|remove|status|nodes|pause|resume|reset|history|watch`:
 * node management policies, which roll agent upgrades out to the nodes they select, and the
 * steering of their rollouts.
 */
import { type Exchange } from '@careen/api-client';
import { type Command, InvalidArgumentError } from 'commander';
import { type Column, formatColumns, formatJson, formatRecord } from '../output/output';
import { type CliServices, contextOf, orgCommandContext } from './command-context';
import { CliError } from '../cli-errors';
import { confirmed, YES_OPTION } from './confirmation';
import { readJsonObject } from './file-input';
import { HISTORY_COLUMNS, historyLimit, readHistory, type HistoryEntry } from './history';
import { registerNmpWatchCommand } from './nmp-watch.command';
import { repeated } from './repeated-option';

type Schemas = Exchange.components['schemas'];

const NMP_COLUMNS: readonly Column<Schemas['ManagementPolicyResponse']>[] = [
  { header: 'NAME', value: (nmp) => nmp.name },
  { header: 'STATE', value: (nmp) => nmp.state },
  { header: 'VERSION', value: (nmp) => nmp.agentUpgradePolicy?.atLeastVersion },
  { header: 'PATTERNS', value: (nmp) => nmp.patterns.join(',') },
  { header: 'NODES', value: (nmp) => nmp.nodes.join(',') },
  { header: 'CONSTRAINTS', value: (nmp) => nmp.constraints.join(' && ') },
  { header: 'LAST UPDATED', value: (nmp) => nmp.lastUpdated },
];

const ORG_OPTION = ['--org <org>', 'org of the policy (default: CAREEN_ORG, else your own org)'] as const;

export const DISRUPTIVE_QUESTION = 'This policy may upgrade every node at about the same time. Publish it?';

/** What `careen nmp new` prints: every field, commented; `publish` ignores `//` lines. */
export const NMP_TEMPLATE = `{
  // A short name for people, and what the policy is for.
  "label": "",
  "description": "",
  // Constraints the nodes' policy properties must satisfy, e.g. "careen.arch == amd64".
  "constraints": [],
  // Properties the nodes' own constraints are checked against: [{"name": "...", "value": ...}].
  "properties": [],
  // Patterns whose nodes it applies to: "pattern", "org/pattern", or "*" (every node with a pattern).
  "patterns": [],
  // Node ids it applies to, besides any selected by constraints or patterns.
  "nodes": [],
  // A policy does nothing until enabled. An enabled policy that selects every node (no
  // constraints, patterns or nodes, or the pattern "*") is published only once confirmed.
  "enabled": false,
  "agentUpgradePolicy": {
    // A semantic version (1.2.3), or "current".
    "atLeastVersion": "current",
    // An RFC3339 UTC time (2026-12-01T02:00:00Z), or "now".
    "start": "now",
    // Seconds over which the nodes spread their start.
    "duration": 0,
    // "install", or "download" to stop after verifying the package.
    "action": "install",
    // true to take nodes running a higher version down to atLeastVersion, which must then be
    // an exact version (a rollback); false: nodes only move up.
    "allowDowngrade": false
  },
  // Disable the policy once this many of its nodes have failed; remove the line for no limit.
  "failureThreshold": 1
}
`;

/** Mirrors the exchange's rule: an enabled policy with "*" or with no selection at all. */
export function selectsEveryNode(policy: Record<string, unknown>): boolean {
  if (policy.enabled !== true) return false;
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  const patterns = list(policy.patterns);
  if (patterns.includes('*')) return true;
  return list(policy.constraints).length === 0 && patterns.length === 0 && list(policy.nodes).length === 0;
}

function windowSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 30 * 86_400)
    throw new InvalidArgumentError('whole seconds from 0 to 2592000');
  return seconds;
}

export function registerNmpCommands(program: Command, services: CliServices): void {
  const nmp = program.command('nmp').description('manage node management policies (agent upgrades)');

  nmp
    .command('new')
    .description('print a commented template of a policy, to edit and publish')
    .action(() => {
      services.io.stdout.write(NMP_TEMPLATE);
    });

  nmp
    .command('publish')
    .description('create or replace a policy from a JSON file')
    .argument('<name>', "policy name: letters, digits, '-' or '_'")
    .requiredOption('-f, --file <file>', 'the policy, as JSON (`//` comment lines are ignored)')
    .option(...ORG_OPTION)
    .option('-y, --yes', 'publish a policy that selects every node without asking')
    .action(
      async (name: string, options: { file: string; org?: string; yes?: boolean }, command: Command) => {
        const context = contextOf(command, services);
        const { allowDisruptive: _ignored, ...policy } = await readJsonObject(options.file);
        const exchange = await context.exchange();
        const org = await context.org(exchange, options.org);
        // The file goes as written: the exchange checks it and names what is wrong.
        const body = { ...policy } as Schemas['ManagementPolicyDto'];
        if (selectsEveryNode(policy)) {
          const what = `policy "${org}/${name}"`;
          const ok = await confirmed(
            context,
            options.yes,
            DISRUPTIVE_QUESTION,
            `not publishing ${what}, which selects every node, without confirmation`,
            'nothing published',
          );
          if (!ok) return;
          body.allowDisruptive = true;
        }
        context.printer.record(
          await exchange((api) =>
            api.PUT('/v1/orgs/{org}/management-policies/{name}', { params: { path: { org, name } }, body }),
          ),
        );
      },
    );

  nmp
    .command('list')
    .description('list the policies of an org')
    .option(...ORG_OPTION)
    .action(async (options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const answer = await exchange((api) =>
        api.GET('/v1/orgs/{org}/management-policies', { params: { path: { org } } }),
      );
      context.printer.list(answer, NMP_COLUMNS, `no management policies in org "${org}"`);
    });

  nmp
    .command('show')
    .description('show a policy')
    .argument('<name>', 'policy name')
    .option(...ORG_OPTION)
    .action(async (name: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) =>
          api.GET('/v1/orgs/{org}/management-policies/{name}', { params: { path: { org, name } } }),
        ),
      );
    });

  nmp
    .command('remove')
    .description('remove a policy')
    .argument('<name>', 'policy name')
    .option(...ORG_OPTION)
    .option(...YES_OPTION)
    .action(async (name: string, options: { org?: string; yes?: boolean }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const what = `management policy "${org}/${name}"`;
      if (
        !(await confirmed(
          context,
          options.yes,
          `Remove ${what}?`,
          `not removing ${what} without confirmation`,
        ))
      )
        return;
      const answer = await exchange((api) =>
        api.DELETE('/v1/orgs/{org}/management-policies/{name}', { params: { path: { org, name } } }),
      );
      // The halts outlive the policy (its failed members are still down): say how each ends.
      const orgFlag = options.org ? ` --org ${org}` : '';
      const halts = answer.leftHalted.map(
        (member) =>
          `HA group "${member.haGroup}" stays halted: node "${member.node}" failed (${member.status}${member.error ? `: ${member.error}` : ''}); once it is repaired, end the halt with: careen hagroup reset ${member.haGroup} --node ${member.node}${orgFlag}`,
      );
      context.printer.result(answer, [`removed ${what}`, ...halts].join('\n'));
    });

  nmp
    .command('status')
    .description("how the policy's nodes are doing: nodes by upgrade status")
    .argument('<name>', 'policy name')
    .option(...ORG_OPTION)
    .action(async (name: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const rollup = await exchange((api) =>
        api.GET('/v1/orgs/{org}/management-policies/{name}/status', { params: { path: { org, name } } }),
      );
      const { stdout } = context.io;
      if (context.printer.format === 'json') {
        stdout.write(formatJson(rollup));
        return;
      }
      const { counts, ...summary } = rollup;
      stdout.write(formatRecord(summary));
      const rows = Object.entries(counts).map(([status, nodes]) => ({ status, nodes }));
      if (rows.length > 0) {
        stdout.write('\n');
        stdout.write(
          formatColumns(
            [
              { header: 'STATUS', value: (row: { status: string }) => row.status },
              { header: 'NODES', value: (row: { nodes: number }) => row.nodes },
            ],
            rows,
          ),
        );
      }
    });

  nmp
    .command('nodes')
    .description('list the nodes the policy applies to')
    .argument('<name>', 'policy name')
    .option(...ORG_OPTION)
    .action(async (name: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const answer = await exchange((api) =>
        api.GET('/v1/orgs/{org}/management-policies/{name}/nodes', { params: { path: { org, name } } }),
      );
      const empty = answer.enabled
        ? `policy "${org}/${name}" applies to no nodes`
        : `policy "${org}/${name}" is disabled and selects no nodes`;
      context.printer.list(answer, [{ header: 'NODE', value: (node: string) => node }], empty);
      if (!answer.enabled && answer.items.length > 0)
        context.printer.note(`policy "${org}/${name}" is disabled: it applies to these nodes once enabled`);
    });

  nmp
    .command('pause')
    .description("pause a policy's rollout: nodes that have not started wait; nodes installing finish")
    .argument('<name>', 'policy name')
    .option(...ORG_OPTION)
    .action(async (name: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const policy = await exchange((api) =>
        api.POST('/v1/orgs/{org}/management-policies/{name}/pause', { params: { path: { org, name } } }),
      );
      context.printer.result(policy, `paused the rollout of policy "${org}/${name}"`);
    });

  nmp
    .command('resume')
    .description(
      'resume a paused rollout, or enable a disabled policy again (only later failures count), spreading the nodes left over a window',
    )
    .argument('<name>', 'policy name')
    .option(
      '--window <seconds>',
      'spread the nodes that have not started over this many seconds (default: what was left of the window)',
      windowSeconds,
    )
    .option(...ORG_OPTION)
    .action(async (name: string, options: { org?: string; window?: number }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const policy = await exchange((api) =>
        api.POST('/v1/orgs/{org}/management-policies/{name}/resume', {
          params: { path: { org, name } },
          body: options.window === undefined ? {} : { window: options.window },
        }),
      );
      const spread = policy.resumeWindow
        ? `; nodes that have not started go over ${policy.resumeWindow.duration} s from ${policy.resumeWindow.start}`
        : '';
      context.printer.result(policy, `policy "${org}/${name}" is ${policy.state}${spread}`);
    });

  nmp
    .command('reset')
    .description(
      'ask nodes to enact the policy again (even at a version that failed there), ending the halt of their HA group',
    )
    .argument('<name>', 'policy name')
    .option('--node <id>', 'this node; repeat for several', repeated, [])
    .option('--failed', 'every node whose status counts as failed')
    .option(...ORG_OPTION)
    .option('-y, --yes', 'reset every node of the policy without asking')
    .action(
      async (
        name: string,
        options: { org?: string; node: string[]; failed?: boolean; yes?: boolean },
        command: Command,
      ) => {
        if (options.node.length > 0 && options.failed)
          throw new CliError('give --node or --failed, not both');
        const { context, exchange, org } = await orgCommandContext(command, services, options.org);
        const body: Schemas['ResetRolloutDto'] = options.failed
          ? { failed: true }
          : options.node.length > 0
            ? { nodes: options.node }
            : {};
        if (!options.failed && options.node.length === 0) {
          const ok = await confirmed(
            context,
            options.yes,
            `Reset every node of policy "${org}/${name}"?`,
            `not resetting every node of policy "${org}/${name}" without confirmation`,
            'nothing reset',
          );
          if (!ok) return;
        }
        const answer = await exchange((api) =>
          api.POST('/v1/orgs/{org}/management-policies/{name}/reset', {
            params: { path: { org, name } },
            body,
          }),
        );
        context.printer.result(
          answer,
          answer.total === 0
            ? `no nodes of policy "${org}/${name}" to reset`
            : `reset ${answer.total} node(s) of policy "${org}/${name}": ${answer.nodes.join(', ')}`,
        );
      },
    );

  nmp
    .command('history')
    .description(
      "the policy's events and its nodes' statuses, newest first; kept after the policy is removed",
    )
    .argument('<name>', 'policy name')
    .option('--node <id>', "only this node's statuses")
    .option('--limit <n>', 'show at most this many entries', historyLimit, 50)
    .option(...ORG_OPTION)
    .action(
      async (name: string, options: { org?: string; node?: string; limit: number }, command: Command) => {
        const { context, exchange, org } = await orgCommandContext(command, services, options.org);
        const items = await readHistory(options.limit, (page) =>
          exchange((api) =>
            api.GET('/v1/orgs/{org}/management-policies/{name}/history', {
              params: { path: { org, name }, query: { ...page, node: options.node || undefined } },
            }),
          ),
        );
        context.printer.list<HistoryEntry>(
          { items, total: items.length },
          HISTORY_COLUMNS,
          `no history for policy "${org}/${name}"`,
        );
      },
    );

  registerNmpWatchCommand(nmp, services, ORG_OPTION);
}
