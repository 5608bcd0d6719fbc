/**
 * `careen subscription add|list|show|remove|rotate-secret|credentials|redeliver` and
 * `careen deliveries`: who receives an org's maintenance events (by webhook, on NATS, or as a
 * server-sent event stream), and what was delivered, asked of the notifier
 * (--notifier-url, else CAREEN_NOTIFIER_URL, else http://127.0.0.1:8084) with the caller's login.
 */
import { type Notifier } from '@careen/api-client';
import { type Command, InvalidArgumentError } from 'commander';
import { writeFile } from 'node:fs/promises';
import { CliError } from '../cli-errors';
import { serviceBaseUrl } from '../http/service-url';
import { type Column } from '../output/output';
import { type CliServices, serviceCommandContext } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';
import { parseMembers } from './hagroup.commands';

export const DEFAULT_NOTIFIER_URL = 'http://127.0.0.1:8084';
export const NOTIFIER_URL_OPTION = [
  '--notifier-url <url>',
  `notifier URL (default: CAREEN_NOTIFIER_URL, else ${DEFAULT_NOTIFIER_URL})`,
] as const;

type Schemas = Notifier.components['schemas'];
type SubscriptionRequest = Schemas['CreateSubscriptionDto'];

const SUBSCRIPTION_COLUMNS: readonly Column<Schemas['SubscriptionResponse']>[] = [
  { header: 'ID', value: (row) => row.id },
  {
    header: 'SCOPE',
    value: (row) =>
      row.scope === 'project'
        ? `project ${row.project_id}`
        : row.scope === 'admin'
          ? `admin ${row.hosts.length > 0 ? row.hosts.join(',') : '(every host)'}`
          : 'all projects',
  },
  { header: 'STATES', value: (row) => (row.states.length > 0 ? row.states.join(',') : '(all)') },
  { header: 'KIND', value: (row) => (row.format ? `${row.kind} ${row.format}` : row.kind) },
  { header: 'TARGET', value: (row) => row.url ?? row.nats?.durable ?? '' },
];

const DELIVERY_COLUMNS: readonly Column<Schemas['DeliveryResponse']>[] = [
  { header: 'ID', value: (row) => row.id },
  { header: 'SUBSCRIPTION', value: (row) => row.subscription_id },
  { header: 'EVENT', value: (row) => row.event_id },
  { header: 'STATE', value: (row) => row.state },
  { header: 'ATTEMPTS', value: (row) => row.attempts },
  { header: 'LAST ERROR', value: (row) => row.last_error ?? '' },
  { header: 'CREATED', value: (row) => row.created_at },
];

function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('a whole number of seconds');
  return parsed;
}

interface AddOptions {
  project?: string;
  allProjects?: boolean;
  admin?: boolean;
  hosts?: string;
  kind: string;
  url?: string;
  format?: string;
  eventNames?: string;
  states?: string;
  org?: string;
}

/** The request body of `subscription add`; exactly one scope. */
export function subscriptionRequest(options: AddOptions): SubscriptionRequest {
  const scopes = [options.project !== undefined, options.allProjects === true, options.admin === true];
  if (scopes.filter(Boolean).length !== 1)
    throw new CliError('say what to subscribe to: exactly one of --project P, --all-projects and --admin');
  if (options.hosts !== undefined && !options.admin) throw new CliError('--hosts goes with --admin');
  const webhook = options.kind === 'webhook';
  if (webhook && options.url === undefined) throw new CliError('a webhook subscription needs --url');
  if (
    !webhook &&
    (options.url !== undefined || options.format !== undefined || options.eventNames !== undefined)
  )
    throw new CliError(`--url, --format and --event-names go with --kind webhook, not ${options.kind}`);
  return {
    ...(options.org ? { org: options.org } : {}),
    scope: options.project !== undefined ? 'project' : options.admin ? 'admin' : 'all-projects',
    ...(options.project !== undefined ? { project_id: options.project } : {}),
    ...(options.hosts !== undefined ? { hosts: parseMembers(options.hosts) } : {}),
    // The kind, states and format as typed: the notifier refuses any other with 400 naming what it takes.
    ...(options.states !== undefined
      ? { states: parseMembers(options.states) as SubscriptionRequest['states'] }
      : {}),
    kind: options.kind as SubscriptionRequest['kind'],
    ...(webhook
      ? { url: options.url, format: (options.format ?? 'cloudevents') as SubscriptionRequest['format'] }
      : {}),
    ...(options.eventNames !== undefined
      ? { event_names: options.eventNames as SubscriptionRequest['event_names'] }
      : {}),
  };
}

/** What is shown once: a webhook's secret, or a NATS subscriber's creds, printed or written to a file. */
async function shownOnce(
  answer: Schemas['SubscriptionCreatedResponse'],
  credsOut: string | undefined,
): Promise<string> {
  if (answer.secret) return `signing secret (shown once, keep it with the receiver): ${answer.secret}`;
  if (!answer.credentials) return '';
  const where = answer.nats
    ? `\nread consumer ${answer.nats.durable} (stream CAREEN_MAINT, ${answer.nats.subject}) with inbox prefix ${answer.nats.inbox_prefix};` +
      `\nreply on ${answer.nats.reply_subject}`
    : '';
  if (credsOut) {
    await writeFile(credsOut, answer.credentials, { mode: 0o600 });
    return `NATS credentials written to ${credsOut} (shown once)${where}`;
  }
  return `NATS credentials (shown once; save them as a .creds file):\n${answer.credentials}${where}`;
}

/** The notifier (--notifier-url, else CAREEN_NOTIFIER_URL, else the default), asked with the caller's login. */
export function notifierContext(command: Command, services: CliServices) {
  const flag = command.optsWithGlobals<{ notifierUrl?: string }>().notifierUrl;
  const url = serviceBaseUrl('notifier', flag ?? services.env.notifierUrl ?? DEFAULT_NOTIFIER_URL);
  return serviceCommandContext<Notifier.paths>(command, services, {
    name: 'notifier',
    url,
    setting: '--notifier-url or CAREEN_NOTIFIER_URL',
  });
}

export function registerSubscriptionCommands(program: Command, services: CliServices): void {
  const notifier = (command: Command) => notifierContext(command, services);

  const subscription = program
    .command('subscription')
    .description("who receives the org's maintenance events, and how (the notifier)")
    .option(...NOTIFIER_URL_OPTION);

  subscription
    .command('add')
    .description(
      "subscribe to maintenance events; prints a webhook's signing secret, or NATS credentials, this once",
    )
    .option('--project <project>', "one project's events")
    .option('--all-projects', "every project's events")
    .option('--admin', "admin events about the org's hosts")
    .option('--hosts <ids>', 'with --admin: only these hosts, comma-separated')
    .option('--kind <kind>', 'webhook, nats (a consumer of its own) or sse (careen events)', 'webhook')
    .option('--url <url>', 'with webhook: the URL')
    .option('--format <format>', 'with webhook: cloudevents (default) or aodh')
    .option(
      '--event-names <names>',
      "with webhook: the guideline's (default) or fenix (SCALE_IN for DOWN_SCALE)",
    )
    .option('--creds-out <file>', 'with nats: write the credentials to this file instead of printing them')
    .option('--states <states>', 'only these states, comma-separated (default all)')
    .option('--org <org>', 'org (default: your own)')
    .action(async (options: AddOptions & { credsOut?: string }, command: Command) => {
      const body = subscriptionRequest(options);
      const { context, ask } = await notifier(command);
      const created = await ask((api) => api.POST('/v1/subscriptions', { body }));
      const once = await shownOnce(created, options.credsOut);
      context.printer.result(created, `subscription ${created.id}${once ? `\n${once}` : ''}`);
    });

  subscription
    .command('list')
    .description("the org's subscriptions")
    .option('--org <org>', 'org (default: your own)')
    .action(async (options: { org?: string }, command: Command) => {
      const { context, ask } = await notifier(command);
      const answer = await ask((api) =>
        api.GET('/v1/subscriptions', { params: { query: { org: options.org || undefined } } }),
      );
      context.printer.list(answer, SUBSCRIPTION_COLUMNS, 'no subscriptions');
    });

  subscription
    .command('show')
    .description('one subscription (never its secret)')
    .argument('<id>', 'subscription id')
    .action(async (id: string, _options: object, command: Command) => {
      const { context, ask } = await notifier(command);
      context.printer.record(
        await ask((api) => api.GET('/v1/subscriptions/{id}', { params: { path: { id } } })),
      );
    });

  subscription
    .command('remove')
    .description('remove a subscription and what it is still owed')
    .argument('<id>', 'subscription id')
    .option(...YES_OPTION)
    .action(async (id: string, options: { yes?: boolean }, command: Command) => {
      const { context, ask } = await notifier(command);
      await removeAfterConfirmation(context, `subscription ${id}`, options.yes, () =>
        ask((api) => api.DELETE('/v1/subscriptions/{id}', { params: { path: { id } } })),
      );
    });

  subscription
    .command('rotate-secret')
    .description('a new signing secret, shown once; the old one signs too for the overlap')
    .argument('<id>', 'subscription id')
    .requiredOption('--overlap <seconds>', 'how long the old secret keeps signing', seconds)
    .action(async (id: string, options: { overlap: number }, command: Command) => {
      const { context, ask } = await notifier(command);
      const rotated = await ask((api) =>
        api.POST('/v1/subscriptions/{id}/rotate-secret', {
          params: { path: { id } },
          body: { overlap_seconds: options.overlap },
        }),
      );
      context.printer.result(rotated, `new signing secret (shown once): ${rotated.secret}`);
    });

  subscription
    .command('credentials')
    .description(
      'new NATS credentials for a nats subscription, shown once; earlier ones last until they expire',
    )
    .argument('<id>', 'subscription id')
    .option('--creds-out <file>', 'write the credentials to this file instead of printing them')
    .action(async (id: string, options: { credsOut?: string }, command: Command) => {
      const { context, ask } = await notifier(command);
      const renewed = await ask((api) =>
        api.POST('/v1/subscriptions/{id}/credentials', { params: { path: { id } } }),
      );
      context.printer.result(renewed, await shownOnce(renewed, options.credsOut));
    });

  subscription
    .command('redeliver')
    .description('send a dead delivery again, from now')
    .argument('<delivery>', 'delivery id (careen deliveries --state dead)')
    .action(async (id: string, _options: object, command: Command) => {
      const { context, ask } = await notifier(command);
      const again = await ask((api) =>
        api.POST('/v1/deliveries/{id}/redeliver', { params: { path: { id } } }),
      );
      context.printer.result(again, `delivery ${id} is ${again.state} again`);
    });

  program
    .command('deliveries')
    .description("what the notifier owed the org's subscriptions and did, newest first")
    .option('--subscription <id>', 'one subscription')
    .option('--state <state>', 'pending, delivered or dead')
    .option('--org <org>', 'org (default: your own)')
    .option(...NOTIFIER_URL_OPTION)
    .action(
      async (
        // The state as typed: the notifier refuses any other with 400 naming the states.
        options: { subscription?: string; state?: Schemas['DeliveryResponse']['state']; org?: string },
        command: Command,
      ) => {
        const { context, ask } = await notifier(command);
        const answer = await ask((api) =>
          api.GET('/v1/deliveries', {
            params: {
              query: {
                subscription: options.subscription || undefined,
                state: options.state || undefined,
                org: options.org || undefined,
              },
            },
          }),
        );
        context.printer.list(answer, DELIVERY_COLUMNS, 'no deliveries');
      },
    );
}
