/** `careen user add|list|show|remove`: users of an org. */
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { CliError } from '../cli-errors';
import { type Column } from '../output/output';
import { isInteractive, promptSecret, readAllInput } from '../terminal/prompts';
import { type CliServices, type CommandContext, contextOf, orgCommandContext } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';

type User = Exchange.components['schemas']['UserResponse'];
type Role = User['role'];

const USER_COLUMNS: readonly Column<User>[] = [
  { header: 'USERNAME', value: (user) => user.username },
  { header: 'ROLE', value: (user) => user.role },
  { header: 'SIGNS IN WITH', value: (user) => user.identityProvider ?? 'password' },
  { header: 'CREATED', value: (user) => user.createdAt },
];

const ORG_OPTION = ['--org <org>', 'org of the user (default: CAREEN_ORG, else your own org)'] as const;

export function registerUserCommands(program: Command, services: CliServices): void {
  const user = program.command('user').description("manage an org's users");

  user
    .command('add')
    .description('add a user to an org')
    .argument('<username>', "user name: letters, digits, '-' or '_'")
    .requiredOption('--role <role>', 'viewer, operator, orgAdmin or hubAdmin')
    .option(...ORG_OPTION)
    .option(
      '--password-stdin',
      "read the new user's password from stdin (else CAREEN_NEW_PASSWORD, else asked)",
    )
    .action(
      async (
        username: string,
        // The role as typed: the exchange refuses any other with 400 naming the roles it takes.
        options: { role: Role; org?: string; passwordStdin?: boolean },
        command: Command,
      ) => {
        const context = contextOf(command, services);
        const exchange = await context.exchange();
        const org = await context.org(exchange, options.org);
        const password = await newPassword(context, options.passwordStdin === true, `${org}/${username}`);
        context.printer.record(
          await exchange((api) =>
            api.POST('/v1/orgs/{org}/users', {
              params: { path: { org } },
              body: { username, password, role: options.role },
            }),
          ),
        );
      },
    );

  user
    .command('list')
    .description('list the users of an org')
    .option(...ORG_OPTION)
    .action(async (options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const answer = await exchange((api) => api.GET('/v1/orgs/{org}/users', { params: { path: { org } } }));
      context.printer.list(answer, USER_COLUMNS, `no users in org "${org}"`);
    });

  user
    .command('show')
    .description('show a user')
    .argument('<username>', 'user name')
    .option(...ORG_OPTION)
    .action(async (username: string, options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) =>
          api.GET('/v1/orgs/{org}/users/{username}', { params: { path: { org, username } } }),
        ),
      );
    });

  user
    .command('remove')
    .description('remove a user from an org')
    .argument('<username>', 'user name')
    .option(...ORG_OPTION)
    .option(...YES_OPTION)
    .action(async (username: string, options: { org?: string; yes?: boolean }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      await removeAfterConfirmation(context, `user "${org}/${username}"`, options.yes, () =>
        exchange((api) =>
          api.DELETE('/v1/orgs/{org}/users/{username}', { params: { path: { org, username } } }),
        ),
      );
    });
}

/** From stdin, CAREEN_NEW_PASSWORD, or typed twice at the terminal. */
async function newPassword(context: CommandContext, fromStdin: boolean, who: string): Promise<string> {
  const { io, env } = context;
  if (fromStdin) {
    const password = await readAllInput(io.stdin);
    if (!password) throw new CliError('--password-stdin was given but stdin is empty');
    return password;
  }
  if (env.newPassword) return env.newPassword;
  if (!isInteractive(io.stdin))
    throw new CliError('missing password for the new user: pass --password-stdin or set CAREEN_NEW_PASSWORD');
  const password = await promptSecret(io.stdin, io.stderr, `Password for ${who}`);
  if (!password) throw new CliError('missing password');
  if ((await promptSecret(io.stdin, io.stderr, 'Repeat it')) !== password)
    throw new CliError('the passwords do not match');
  return password;
}
