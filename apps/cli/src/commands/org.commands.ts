/** `careen org create|list|show`: orgs of the exchange. */
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { type CliServices, contextOf } from './command-context';

type Org = Exchange.components['schemas']['OrgResponse'];

export function registerOrgCommands(program: Command, services: CliServices): void {
  const org = program.command('org').description('manage orgs');

  org
    .command('create')
    .description('create an org (hub admins only)')
    .argument('<id>', "org id: letters, digits, '-' or '_'")
    .option('--label <label>', 'human-readable name (default: the id)')
    .action(async (id: string, options: { label?: string }, command: Command) => {
      const context = contextOf(command, services);
      const exchange = await context.exchange();
      const created = await exchange((api) =>
        api.POST('/v1/orgs', {
          body: { id, ...(options.label === undefined ? {} : { label: options.label }) },
        }),
      );
      context.printer.record(created);
    });

  org
    .command('list')
    .description('list the orgs you may see (every org, for hub admins)')
    .action(async (_options: object, command: Command) => {
      const context = contextOf(command, services);
      const exchange = await context.exchange();
      const answer = await exchange((api) => api.GET('/v1/orgs'));
      context.printer.list(
        answer,
        [
          { header: 'ID', value: (each: Org) => each.id },
          { header: 'LABEL', value: (each: Org) => each.label },
          { header: 'CREATED', value: (each: Org) => each.createdAt },
        ],
        'no orgs',
      );
    });

  org
    .command('show')
    .description('show an org')
    .argument('[id]', 'org id (default: the org you are logged in to)')
    .action(async (id: string | undefined, _options: object, command: Command) => {
      const context = contextOf(command, services);
      const exchange = await context.exchange();
      const orgId = await context.org(exchange, id);
      context.printer.record(
        await exchange((api) => api.GET('/v1/orgs/{org}', { params: { path: { org: orgId } } })),
      );
    });
}
