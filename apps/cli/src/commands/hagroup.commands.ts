/**
 * `careen hagroup create|update|delete|list|show|reset`: HA groups of an org's nodes, and the
 * end of a group's halt (asked of the agbot, which keeps it).
 */
import { type Agbot, type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { ExchangeUnreachable } from '../http/exchange-errors';
import { askService } from '../http/service-url';
import { type Column } from '../output/output';
import { type CliServices, type CommandContext, orgCommandContext } from './command-context';
import { confirmed } from './confirmation';
import { resolveAgbotUrl } from './deploycheck-request';

type HaltReset = Agbot.components['schemas']['HaltResetResponse'];
type UpgradeGroup = Agbot.components['schemas']['UpgradeGroupResponse'];
/** A group as the exchange keeps it, with its slot in words as the agbot holds it. */
type GroupWithSlot = Exchange.components['schemas']['HaGroupResponse'] & { slot: string };

const HA_GROUP_COLUMNS: readonly Column<GroupWithSlot>[] = [
  { header: 'NAME', value: (group) => group.name },
  { header: 'MEMBERS', value: (group) => group.members.join(',') },
  { header: 'MAX DOWN', value: (group) => String(group.maxUnavailable) },
  { header: 'SLOT', value: (group) => group.slot },
  { header: 'DESCRIPTION', value: (group) => group.description },
  { header: 'UPDATED', value: (group) => group.updated },
];

const AGBOT_URL_OPTION = [
  '--agbot-url <url>',
  'agbot URL (default: CAREEN_AGBOT_URL, else http://127.0.0.1:8081)',
] as const;

/**
 * A group's slot in words: free, who holds it, or who halted it and the command that ends the
 * halt (a halt outlives its policy). Pure.
 */
export function describeSlot(slots: ReadonlyMap<string, UpgradeGroup> | undefined, name: string): string {
  if (!slots) return 'unknown';
  const group = slots.get(name);
  if (!group || group.state === 'free') return 'free';
  if (group.halted) {
    const { node, managementPolicy, policyRemoved } = group.halted;
    const policy = managementPolicy ? ` (${managementPolicy}${policyRemoved ? ', removed' : ''})` : '';
    return `halted by ${node}${policy}: careen hagroup reset ${group.haGroup} --node ${node}`;
  }
  const holder = group.holder!;
  return `held by ${holder.node} (${holder.kind}${holder.managementPolicy ? ` ${holder.managementPolicy}` : ''})`;
}

const ORG_OPTION = ['--org <org>', 'org of the group (default: CAREEN_ORG, else your own org)'] as const;
const MEMBERS_OPTION = ['--members <ids>', 'node ids of the org, comma-separated'] as const;

const MAX_UNAVAILABLE_OPTION = [
  '--max-unavailable <count|percent>',
  'members disrupted at once: a count such as 2, or a percentage such as 40% (default 1)',
] as const;

interface GroupOptions {
  org?: string;
  members: string;
  description?: string;
  maxUnavailable?: string;
}

/** `2` → 2, `40%` → "40%": the exchange checks either and names what is wrong. */
export function parseLimit(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : text.trim();
}

/** The body of a create or replace, from the command's options. */
function groupBody(options: GroupOptions) {
  return {
    description: options.description,
    members: parseMembers(options.members),
    ...(options.maxUnavailable !== undefined && {
      maxUnavailable: parseLimit(options.maxUnavailable),
    }),
  };
}

/** What `hagroup reset` did, for people: each halt ended, and what is left to do about its member. */
export function describeHaltReset(org: string, answer: HaltReset, node?: string): string {
  if (answer.items.length === 0)
    return node
      ? `node "${node}" does not halt HA group "${org}/${answer.haGroup}": nothing to reset`
      : `HA group "${org}/${answer.haGroup}" is not halted: nothing to reset`;
  return answer.items
    .map((halt) => {
      const policy = halt.managementPolicy
        ? ` for management policy "${halt.managementPolicy}"${halt.policyRemoved ? ' (removed)' : ''}`
        : '';
      const ended = `ended the halt of HA group "${org}/${answer.haGroup}" by node "${halt.node}"${policy}${halt.error ? `: ${halt.error}` : ''}`;
      // A policy that still exists keeps the member's failed status: only its reset has it try again.
      return halt.managementPolicy && !halt.policyRemoved
        ? `${ended}\nits status stays failed; to have it try again: careen nmp reset ${halt.managementPolicy} --node ${halt.node}`
        : ended;
    })
    .join('\n');
}

/** `a,b, c` → [a, b, c]; an empty string is an empty group. */
export function parseMembers(members: string): string[] {
  return members
    .split(',')
    .map((member) => member.trim())
    .filter((member) => member !== '');
}

export function registerHaGroupCommands(program: Command, services: CliServices): void {
  const hagroup = program.command('hagroup').description("manage HA groups of an org's nodes");

  hagroup
    .command('create')
    .description('create an HA group (a node may be in one group only)')
    .argument('<name>', "group name: letters, digits, '-' or '_'")
    .requiredOption(...MEMBERS_OPTION)
    .option('--description <text>', 'what the group is for')
    .option(...MAX_UNAVAILABLE_OPTION)
    .option(...ORG_OPTION)
    .action(async (name: string, options: GroupOptions, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) =>
          api.POST('/v1/orgs/{org}/hagroups', {
            params: { path: { org } },
            body: { name, ...groupBody(options) },
          }),
        ),
      );
    });

  hagroup
    .command('update')
    .description('replace the members (and description) of an HA group')
    .argument('<name>', 'group name')
    .requiredOption(...MEMBERS_OPTION)
    .option('--description <text>', 'what the group is for (default: empty)')
    .option(...MAX_UNAVAILABLE_OPTION)
    .option(...ORG_OPTION)
    .action(async (name: string, options: GroupOptions, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) =>
          api.PUT('/v1/orgs/{org}/hagroups/{name}', {
            params: { path: { org, name } },
            body: groupBody(options),
          }),
        ),
      );
    });

  /**
   * The org's groups' slots as the agbot holds them, by group; undefined, said on stderr, when the
   * agbot cannot be reached: the groups themselves are the exchange's and still listed.
   */
  const slotsOf = async (context: CommandContext, org: string, agbotFlag: string | undefined) => {
    const agbotUrl = resolveAgbotUrl(agbotFlag, services.env);
    const agbot = await context.serviceCalls<Agbot.paths>(agbotUrl);
    try {
      const answer = await agbot((api) =>
        api.GET('/v1/orgs/{org}/upgrade-groups', { params: { path: { org } } }),
      );
      return new Map(answer.items.map((group) => [group.haGroup, group]));
    } catch (error) {
      if (!(error instanceof ExchangeUnreachable)) throw error;
      context.io.stderr.write(
        `warning: cannot reach the agbot at ${agbotUrl} (${error.reason}): slots unknown; set --agbot-url or CAREEN_AGBOT_URL\n`,
      );
      return undefined;
    }
  };

  hagroup
    .command('list')
    .description("list the HA groups of an org, with each group's slot (the agbot's)")
    .option(...ORG_OPTION)
    .option(...AGBOT_URL_OPTION)
    .action(async (options: { org?: string; agbotUrl?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const answer = await exchange((api) =>
        api.GET('/v1/orgs/{org}/hagroups', { params: { path: { org } } }),
      );
      const slots = await slotsOf(context, org, options.agbotUrl);
      const items = answer.items.map((group) => ({ ...group, slot: describeSlot(slots, group.name) }));
      context.printer.list({ ...answer, items }, HA_GROUP_COLUMNS, `no HA groups in org "${org}"`);
    });

  hagroup
    .command('show')
    .description("show an HA group, with its slot (the agbot's)")
    .argument('<name>', 'group name')
    .option(...ORG_OPTION)
    .option(...AGBOT_URL_OPTION)
    .action(async (name: string, options: { org?: string; agbotUrl?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const group = await exchange((api) =>
        api.GET('/v1/orgs/{org}/hagroups/{name}', { params: { path: { org, name } } }),
      );
      const slots = await slotsOf(context, org, options.agbotUrl);
      context.printer.record({ ...group, slot: describeSlot(slots, name) });
    });

  hagroup
    .command('reset')
    .description(
      "end the group's halt by a failed member, whatever became of its policy, once the member is repaired or out of service",
    )
    .argument('<name>', 'group name')
    .option('--node <id>', "end only this member's halt (asks no confirmation)")
    .option(...ORG_OPTION)
    .option(...AGBOT_URL_OPTION)
    .option('-y, --yes', 'end every halt of the group without asking')
    .action(
      async (
        name: string,
        options: { node?: string; org?: string; agbotUrl?: string; yes?: boolean },
        command: Command,
      ) => {
        const agbotUrl = resolveAgbotUrl(options.agbotUrl, services.env);
        const { context, org } = await orgCommandContext(command, services, options.org);
        if (!options.node) {
          const ok = await confirmed(
            context,
            options.yes,
            `End the halt of HA group "${org}/${name}"? Its other members may then upgrade while the failed one is down.`,
            `not resetting HA group "${org}/${name}" without confirmation`,
            'nothing reset',
          );
          if (!ok) return;
        }
        const agbot = await context.serviceCalls<Agbot.paths>(agbotUrl);
        const answer = await askService('agbot', agbotUrl, '--agbot-url or CAREEN_AGBOT_URL', () =>
          agbot((api) =>
            api.POST('/v1/orgs/{org}/upgrade-groups/{haGroup}/reset', {
              params: { path: { org, haGroup: name } },
              body: options.node ? { node: options.node } : {},
            }),
          ),
        );
        context.printer.result(answer, describeHaltReset(org, answer, options.node));
      },
    );

  hagroup
    .command('delete')
    .description('delete an HA group (its nodes stay registered)')
    .argument('<name>', 'group name')
    .option(...ORG_OPTION)
    .action(async (name: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      await exchange((api) =>
        api.DELETE('/v1/orgs/{org}/hagroups/{name}', { params: { path: { org, name } } }),
      );
      context.printer.note(`deleted HA group "${org}/${name}"`);
    });
}
