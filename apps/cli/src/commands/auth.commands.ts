/**
 * `careen login` and `careen logout`: trading a password for an access token once, keeping
 * the token (never the password) in the config file, and forgetting it.
 */
import { type Command } from 'commander';
import { formatInstant } from '../auth/credentials';
import { CliError } from '../cli-errors';
import { isInteractive, promptLine, promptSecret, readAllInput } from '../terminal/prompts';
import { type CliServices, contextOf, type CommandContext } from './command-context';

interface LoginOptions {
  org?: string;
  user?: string;
  passwordStdin?: boolean;
}

export function registerAuthCommands(program: Command, services: CliServices): void {
  program
    .command('login')
    .description('log in to an exchange and keep the access token for the next commands')
    .option('--org <org>', 'org of the user (default: CAREEN_ORG, else asked)')
    .option('--user <name>', 'user name (default: CAREEN_USER, else asked)')
    .option(
      '--password-stdin',
      'read the password from stdin (else CAREEN_PASSWORD, else asked without echo)',
    )
    .action(async (options: LoginOptions, command: Command) => login(contextOf(command, services), options));

  program
    .command('logout')
    .description('forget the stored access token')
    .action(async (_options: object, command: Command) => logout(contextOf(command, services)));
}

async function login(context: CommandContext, options: LoginOptions): Promise<void> {
  const { io, env } = context;
  const stored = await context.storedConfig();
  const exchangeUrl = await context.exchangeUrl();
  // Stdin is the terminal only when it does not carry the password.
  const terminal = !options.passwordStdin && isInteractive(io.stdin) ? io.stdin : undefined;
  const sameExchange = stored.exchangeUrl === exchangeUrl;

  const ask = async (
    given: string | undefined,
    question: string,
    previous: string | undefined,
    flag: string,
    variable: string,
  ) => {
    if (given) return given;
    if (!terminal) throw new CliError(`missing ${question.toLowerCase()}: pass ${flag} or set ${variable}`);
    const answer = await promptLine(terminal, io.stderr, question, sameExchange ? previous : undefined);
    if (!answer) throw new CliError(`missing ${question.toLowerCase()}`);
    return answer;
  };
  const org = await ask(options.org ?? env.org, 'Org', stored.org, '--org', 'CAREEN_ORG');
  const username = await ask(options.user ?? env.user, 'User', stored.username, '--user', 'CAREEN_USER');

  let password: string;
  if (options.passwordStdin) {
    password = await readAllInput(io.stdin);
    if (!password) throw new CliError('--password-stdin was given but stdin is empty');
  } else if (env.password) {
    password = env.password;
  } else if (terminal) {
    password = await promptSecret(terminal, io.stderr, `Password for ${org}/${username}`);
    if (!password) throw new CliError('missing password');
  } else {
    throw new CliError('missing password: pass --password-stdin or set CAREEN_PASSWORD');
  }

  const exchange = await context.anonymousExchange();
  const issuedAt = context.services.now();
  const token = await exchange((api) => api.POST('/v1/auth/token', { body: { org, username, password } }));
  const expiresAt = formatInstant(new Date(issuedAt.getTime() + token.expiresIn * 1000));
  await context.services.store.save({
    exchangeUrl,
    org,
    username,
    accessToken: token.accessToken,
    expiresAt,
  });

  context.printer.result(
    { exchangeUrl, org, username, expiresAt },
    `logged in to ${exchangeUrl} as ${org}/${username} until ${expiresAt}`,
  );
  if (env.token || (env.user && env.password)) {
    const variable = env.token ? 'CAREEN_TOKEN' : 'CAREEN_USER';
    io.stderr.write(`note: ${variable} is set and takes precedence over this login\n`);
  }
}

async function logout(context: CommandContext): Promise<void> {
  const stored = await context.storedConfig();
  if (!stored.accessToken) {
    context.printer.result({ loggedOut: false }, 'not logged in');
    return;
  }
  const { accessToken: _token, expiresAt: _expiresAt, ...rest } = stored;
  // The exchange and user stay as defaults for the next login.
  await context.services.store.save(rest);
  const who = stored.org && stored.username ? ` as ${stored.org}/${stored.username}` : '';
  context.printer.result({ loggedOut: true }, `logged out of ${stored.exchangeUrl ?? 'the exchange'}${who}`);
}
