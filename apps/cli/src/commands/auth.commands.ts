/**
 * `careen login` and `careen logout`: trading a password once (or, with `--sso`, a sign-in at the
 * org's identity provider) for an access token and the refresh token that renews it, keeping both
 * (never the password) in the config file, and ending the login on the exchange and forgetting it.
 */
import { STATUS_CODES } from 'node:http';
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { decodeJwt } from 'jose';
import { deviceSignIn } from '../auth/device-sign-in';
import { storedTokens, type TokenAnswer } from '../auth/stored-login-bearer';
import { CliError } from '../cli-errors';
import { ExchangeRefusal } from '../http/exchange-errors';
import { serviceCalls } from '../http/service-calls';
import { serviceAnswering } from '../http/service-identity';
import { isInteractive, promptLine, promptSecret, readAllInput } from '../terminal/prompts';
import { type CliServices, contextOf, type CommandContext } from './command-context';

interface LoginOptions {
  org?: string;
  user?: string;
  passwordStdin?: boolean;
  sso?: boolean;
}

export function registerAuthCommands(program: Command, services: CliServices): void {
  program
    .command('login')
    .description('log in to an exchange and keep the login (never the password) for the next commands')
    .option('--org <org>', 'org of the user (default: CAREEN_ORG, else asked)')
    .option('--user <name>', 'user name (default: CAREEN_USER, else asked)')
    .option(
      '--password-stdin',
      'read the password from stdin (else CAREEN_PASSWORD, else asked without echo)',
    )
    .option(
      '--sso',
      "sign in at the org's identity provider instead, in a browser (on any device) with the code shown",
    )
    .action(async (options: LoginOptions, command: Command) => login(contextOf(command, services), options));

  program
    .command('logout')
    .description('end the stored login on the exchange and forget it')
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
  if (options.sso) {
    if (options.user || options.passwordStdin) {
      throw new CliError('--sso takes no --user or --password-stdin: the identity provider says who you are');
    }
    const exchange = await context.anonymousExchange();
    const token = await deviceSignIn(org, {
      start: () =>
        exchange((api) => api.POST('/v1/auth/sso/{org}/device', { params: { path: { org } } })).catch(
          (error: unknown) => notAnExchange(error, exchangeUrl, 'POST /v1/auth/sso/{org}/device'),
        ),
      poll: (deviceCode) =>
        exchange((api) =>
          api.POST('/v1/auth/sso/{org}/device/token', { params: { path: { org } }, body: { deviceCode } }),
        ),
      tell: (line) => io.stderr.write(`${line}\n`),
      wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      now: context.services.now,
    });
    // The exchange's token names the user the provider signed in: "org/username".
    const username = String(decodeJwt(token.accessToken).sub).slice(org.length + 1);
    await keepLogin(context, { exchangeUrl, org, username, token, issuedAt: context.services.now() });
    return;
  }
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
  const token = await exchange((api) =>
    api.POST('/v1/auth/token', { body: { org, username, password } }),
  ).catch((error: unknown) => notAnExchange(error, exchangeUrl, 'POST /v1/auth/token'));
  await keepLogin(context, { exchangeUrl, org, username, token, issuedAt });
}

/** Stores the login the exchange answered and says until when it lasts. */
async function keepLogin(
  context: CommandContext,
  login: { exchangeUrl: string; org: string; username: string; token: TokenAnswer; issuedAt: Date },
): Promise<void> {
  const { exchangeUrl, org, username } = login;
  const { io, env } = context;
  const tokens = storedTokens(login.token, login.issuedAt);
  await context.services.store.save({ exchangeUrl, org, username, ...tokens });
  // The access token is renewed as it runs out: the login lasts as long as its refresh token.
  const expiresAt = tokens.refreshExpiresAt ?? tokens.expiresAt;

  context.printer.result(
    { exchangeUrl, org, username, expiresAt },
    `logged in to ${exchangeUrl} as ${org}/${username} until ${expiresAt}`,
  );
  if (env.token || (env.user && env.password)) {
    const variable = env.token ? 'CAREEN_TOKEN' : 'CAREEN_USER';
    io.stderr.write(`note: ${variable} is set and takes precedence over this login\n`);
  }
}

/**
 * A 404 or 405 to a sign-in route that is not the exchange's own answer (an org with no single
 * sign-on): the URL is some other service's (the agbot's, the console's), which is named when it
 * names itself.
 */
async function notAnExchange(error: unknown, exchangeUrl: string, route: string): Promise<never> {
  if (!(error instanceof ExchangeRefusal) || (error.status !== 404 && error.status !== 405)) throw error;
  if ((error.body?.details as { code?: unknown } | undefined)?.code === 'SSO_NOT_CONFIGURED') throw error;
  const service = await serviceAnswering(exchangeUrl, error);
  const answered = `${route}: ${error.status} ${STATUS_CODES[error.status] ?? ''}`.trimEnd();
  if (!service) {
    throw new CliError(
      `${exchangeUrl} is not a Careen exchange (${answered}): pass the exchange's URL with --exchange`,
    );
  }
  throw new CliError(
    `${exchangeUrl} is not an exchange: the ${service} answered (${answered}); pass the exchange's URL with --exchange`,
    service === 'Careen console'
      ? [`the console passes the exchange's API on under /exchange: --exchange ${exchangeUrl}/exchange`]
      : [],
  );
}

async function logout(context: CommandContext): Promise<void> {
  const stored = await context.storedConfig();
  if (!stored.accessToken && !stored.refreshToken) {
    context.printer.result({ loggedOut: false }, 'not logged in');
    return;
  }
  if (stored.refreshToken && stored.exchangeUrl) {
    const { refreshToken } = stored;
    // Forgotten here either way; an exchange that cannot be told keeps the login until it expires.
    await serviceCalls<Exchange.paths>(stored.exchangeUrl)((api) =>
      api.POST('/v1/auth/token/revoke', { body: { refreshToken } }),
    ).catch((error: unknown) =>
      context.io.stderr.write(
        `warning: the exchange did not end the login (${(error as Error).message}); it lasts until ${stored.refreshExpiresAt ?? 'it expires'}\n`,
      ),
    );
  }
  const {
    accessToken: _token,
    expiresAt: _expiresAt,
    refreshToken: _refreshToken,
    refreshExpiresAt: _refreshExpiresAt,
    ...rest
  } = stored;
  // The exchange and user stay as defaults for the next login.
  await context.services.store.save(rest);
  const who = stored.org && stored.username ? ` as ${stored.org}/${stored.username}` : '';
  context.printer.result({ loggedOut: true }, `logged out of ${stored.exchangeUrl ?? 'the exchange'}${who}`);
}
