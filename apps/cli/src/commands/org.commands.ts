/** `careen org create|list|show`: orgs of the exchange. */
import { type Command } from 'commander';
import { path } from '../http/exchange-client';
import { type CliServices, contextOf } from './command-context';

interface OrgAnswer {
  id: string;
  label: string;
  upgradeDefaults: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export function registerOrgCommands(program: Command, services: CliServices): void {
  const org = program.command('org').description('manage orgs');

  org
    .command('create')
    .description('create an org (hub admins only)')
    .argument('<id>', "org id: letters, digits, '-' or '_'")
    .option('--label <label>', 'human-readable name (default: the id)')
    .action(async (id: string, options: { label?: string }, command: Command) => {
      const context = contextOf(command, services);
      const client = await context.client();
      const created = await client.post<OrgAnswer>(path`/v1/orgs`, {
        id,
        ...(options.label === undefined ? {} : { label: options.label }),
      });
      context.printer.record(created);
    });

  org
    .command('list')
    .description('list the orgs you may see (every org, for hub admins)')
    .action(async (_options: object, command: Command) => {
      const context = contextOf(command, services);
      const client = await context.client();
      const answer = await client.get<{ items: OrgAnswer[]; total: number }>(path`/v1/orgs`);
      context.printer.list(
        answer,
        [
          { header: 'ID', value: (each: OrgAnswer) => each.id },
          { header: 'LABEL', value: (each: OrgAnswer) => each.label },
          { header: 'CREATED', value: (each: OrgAnswer) => each.createdAt },
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
      const client = await context.client();
      const orgId = await context.org(client, id);
      context.printer.record(await client.get<OrgAnswer>(path`/v1/orgs/${orgId}`));
    });
}
