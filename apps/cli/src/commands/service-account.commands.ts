/**
 * `careen service-account create|list|show|remove` and `careen service-account key
 * create|rotate|revoke`: an org's admin tools and pipelines, and their keys. A new key is
 * printed this once; scripts use it as CAREEN_API_KEY.
 */
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { type Column } from '../output/output';
import { contextOf, orgCommandContext, type CliServices } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';
import { commaSeparated } from './repeated-option';
import { wholeNumber } from './whole-number';

type Schemas = Exchange.components['schemas'];
type Account = Schemas['ServiceAccountResponse'];
type Key = Schemas['ApiKeyResponse'];
type Scope = Schemas['CreateApiKeyDto']['scopes'][number];

const ACCOUNT_COLUMNS: readonly Column<Account>[] = [
  { header: 'NAME', value: (account) => account.name },
  { header: 'ACTIVE KEYS', value: (account) => account.keys.filter((key) => key.state === 'active').length },
  { header: 'CREATED BY', value: (account) => account.createdBy },
  { header: 'DESCRIPTION', value: (account) => account.description ?? '' },
];

const KEY_COLUMNS: readonly Column<Key>[] = [
  { header: 'KEY', value: (key) => key.id },
  { header: 'STATE', value: (key) => key.state },
  { header: 'SCOPES', value: (key) => key.scopes.join(',') },
  { header: 'PROJECTS', value: (key) => key.projects?.join(',') ?? '(all)' },
  { header: 'EXPIRES', value: (key) => key.expiresAt },
  { header: 'LAST USED', value: (key) => key.lastUsedAt ?? 'never' },
];

const ORG_OPTION = [
  '--org <org>',
  'org of the service account (default: CAREEN_ORG, else your own org)',
] as const;

/** What a new key's answer says in a table: the key itself, once, and what to do with it. */
function shownOnce(key: Schemas['NewApiKeyResponse']): string {
  return (
    `key ${key.id} (${key.scopes.join(', ')}${key.projects ? `; projects ${key.projects.join(', ')} only` : ''}; ` +
    `expires ${key.expiresAt}), shown once:\n${key.key}\n` +
    'send it as "Authorization: Bearer <key>" (or X-Auth-Token), or to careen as CAREEN_API_KEY'
  );
}

export function registerServiceAccountCommands(program: Command, services: CliServices): void {
  const account = program
    .command('service-account')
    .description("manage an org's service accounts and their keys (org admins)");

  account
    .command('create')
    .description('make a service account')
    .argument('<name>', "its name: letters, digits, '-' or '_'")
    .option('--description <text>', 'what uses it')
    .option(...ORG_OPTION)
    .action(async (name: string, options: { description?: string; org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) =>
          api.POST('/v1/orgs/{org}/service-accounts', {
            params: { path: { org } },
            body: { name, ...(options.description ? { description: options.description } : {}) },
          }),
        ),
      );
    });

  account
    .command('list')
    .description("list the org's service accounts")
    .option(...ORG_OPTION)
    .action(async (options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const answer = await exchange((api) =>
        api.GET('/v1/orgs/{org}/service-accounts', { params: { path: { org } } }),
      );
      context.printer.list(answer, ACCOUNT_COLUMNS, `no service accounts in org "${org}"`);
    });

  account
    .command('show')
    .description('show a service account and its keys (never a secret)')
    .argument('<name>', 'service account')
    .option(...ORG_OPTION)
    .action(async (name: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const answer = await exchange((api) =>
        api.GET('/v1/orgs/{org}/service-accounts/{name}', { params: { path: { org, name } } }),
      );
      if (context.printer.format === 'json') return context.printer.record(answer);
      context.printer.note(`${answer.org}/${answer.name}: ${answer.description ?? 'no description'}`);
      context.printer.list({ items: answer.keys, total: answer.keys.length }, KEY_COLUMNS, 'no keys');
    });

  account
    .command('remove')
    .description('remove a service account; its keys stop working at once')
    .argument('<name>', 'service account')
    .option(...ORG_OPTION)
    .option(...YES_OPTION)
    .action(async (name: string, options: { org?: string; yes?: boolean }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      await removeAfterConfirmation(context, `service account "${org}/${name}"`, options.yes, () =>
        exchange((api) =>
          api.DELETE('/v1/orgs/{org}/service-accounts/{name}', { params: { path: { org, name } } }),
        ),
      );
    });

  account
    .command('bus-credentials')
    .description(
      "with CAREEN_API_KEY set: print the key's NATS creds file (its org's request subjects, for 10 minutes)",
    )
    .action(async (_options: object, command: Command) => {
      const context = contextOf(command, services);
      const exchange = await context.exchange();
      const issued = await exchange((api) => api.POST('/v1/auth/bus-credentials'));
      // The creds file on stdout (to redirect into a file); what it opens on stderr.
      context.printer.result(issued, issued.credentials.trimEnd());
      if (context.printer.format !== 'json') {
        context.io.stderr.write(
          `publish on ${issued.subjects.start} and ${issued.subjects.complete} with the header "Authorization: Bearer <key>", ` +
            `connect with inboxPrefix ${issued.inboxPrefix}; valid until ${issued.expiresAt}\n`,
        );
      }
    });

  const key = account.command('key').description("a service account's keys");

  key
    .command('create')
    .description('make a key with scopes; it is printed this once')
    .argument('<account>', 'service account')
    .requiredOption(
      '--scope <scope>',
      '<resource>:read or <resource>:write, repeated or comma-separated (e.g. rollouts:write,nodes:read)',
      commaSeparated,
    )
    .option('--days <days>', 'how long it lasts (1-365, default 90)', wholeNumber(1, 365))
    .option(
      '--project <project>',
      "limit it to projects (a VNF manager's key), repeated or comma-separated: routes of one project only",
      commaSeparated,
    )
    .option(...ORG_OPTION)
    .action(
      async (
        name: string,
        options: { scope: string[]; days?: number; project?: string[]; org?: string },
        command: Command,
      ) => {
        const { context, exchange, org } = await orgCommandContext(command, services, options.org);
        const made = await exchange((api) =>
          api.POST('/v1/orgs/{org}/service-accounts/{name}/keys', {
            params: { path: { org, name } },
            // The scopes as typed: the exchange refuses others with 400 naming the scopes it takes.
            body: {
              scopes: options.scope as Scope[],
              ...(options.days ? { expiresInDays: options.days } : {}),
              ...(options.project ? { projects: options.project } : {}),
            },
          }),
        );
        context.printer.result(made, shownOnce(made));
      },
    );

  key
    .command('rotate')
    .description('a new key with the same scopes, printed this once; the old one works for the overlap')
    .argument('<account>', 'service account')
    .argument('<key>', "the key's id")
    .requiredOption(
      '--overlap <seconds>',
      'how long the old key keeps working (0-604800)',
      wholeNumber(0, 604_800),
    )
    .option('--days <days>', 'how long the new key lasts (1-365, default 90)', wholeNumber(1, 365))
    .option(...ORG_OPTION)
    .action(
      async (
        name: string,
        id: string,
        options: { overlap: number; days?: number; org?: string },
        command: Command,
      ) => {
        const { context, exchange, org } = await orgCommandContext(command, services, options.org);
        const rotated = await exchange((api) =>
          api.POST('/v1/orgs/{org}/service-accounts/{name}/keys/{key}/rotate', {
            params: { path: { org, name, key: id } },
            body: {
              overlapSeconds: options.overlap,
              ...(options.days ? { expiresInDays: options.days } : {}),
            },
          }),
        );
        context.printer.result(
          rotated,
          `${shownOnce(rotated.key)}\nkey ${rotated.previous.id} works until ${rotated.previous.expiresAt}`,
        );
      },
    );

  key
    .command('revoke')
    .description('revoke a key: every service refuses it from now on')
    .argument('<account>', 'service account')
    .argument('<key>', "the key's id")
    .option(...ORG_OPTION)
    .action(async (name: string, id: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const revoked = await exchange((api) =>
        api.DELETE('/v1/orgs/{org}/service-accounts/{name}/keys/{key}', {
          params: { path: { org, name, key: id } },
        }),
      );
      context.printer.result(revoked, `key ${revoked.id} revoked at ${revoked.revokedAt}`);
    });
}
