/** `careen hagroup create|update|delete|list|show`: HA groups of an org's nodes. */
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { type Column } from '../output/output';
import { type CliServices, orgCommandContext } from './command-context';

const HA_GROUP_COLUMNS: readonly Column<Exchange.components['schemas']['HaGroupResponse']>[] = [
  { header: 'NAME', value: (group) => group.name },
  { header: 'MEMBERS', value: (group) => group.members.join(',') },
  { header: 'DESCRIPTION', value: (group) => group.description },
  { header: 'UPDATED', value: (group) => group.updated },
];

const ORG_OPTION = ['--org <org>', 'org of the group (default: CAREEN_ORG, else your own org)'] as const;
const MEMBERS_OPTION = ['--members <ids>', 'node ids of the org, comma-separated'] as const;

interface GroupOptions {
  org?: string;
  members: string;
  description?: string;
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
    .option(...ORG_OPTION)
    .action(async (name: string, options: GroupOptions, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) =>
          api.POST('/v1/orgs/{org}/hagroups', {
            params: { path: { org } },
            body: { name, description: options.description, members: parseMembers(options.members) },
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
    .option(...ORG_OPTION)
    .action(async (name: string, options: GroupOptions, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) =>
          api.PUT('/v1/orgs/{org}/hagroups/{name}', {
            params: { path: { org, name } },
            body: { description: options.description, members: parseMembers(options.members) },
          }),
        ),
      );
    });

  hagroup
    .command('list')
    .description('list the HA groups of an org')
    .option(...ORG_OPTION)
    .action(async (options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const answer = await exchange((api) =>
        api.GET('/v1/orgs/{org}/hagroups', { params: { path: { org } } }),
      );
      context.printer.list(answer, HA_GROUP_COLUMNS, `no HA groups in org "${org}"`);
    });

  hagroup
    .command('show')
    .description('show an HA group')
    .argument('<name>', 'group name')
    .option(...ORG_OPTION)
    .action(async (name: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) =>
          api.GET('/v1/orgs/{org}/hagroups/{name}', { params: { path: { org, name } } }),
        ),
      );
    });

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
