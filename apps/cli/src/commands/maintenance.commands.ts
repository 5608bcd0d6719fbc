/**
 * `careen maintenance start|list|show|watch|pause|resume|abort|complete-host|constraints`: planned
 * maintenance sessions, asked of the maintenance service (--maintenance-url, else
 * CAREEN_MAINTENANCE_URL, else http://127.0.0.1:8082) with the caller's exchange login.
 */
import { type MaintenanceSession } from '@careen/api-client';
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../cli-errors';
import { serviceBaseUrl } from '../http/service-url';
import { type Column } from '../output/output';
import { sessionChangeLines } from '../watch/change-lines';
import { describeHostAction, FINISHED_SESSION_STATES, renderSession } from '../watch/maintenance-screen';
import { since } from '../watch/rollout-screen';
import { watchLive } from '../watch/watch-live';
import { type CliServices, serviceCommandContext } from './command-context';
import { readJsonObject } from './file-input';
import { parseMembers } from './hagroup.commands';
import { repeated } from './repeated-option';

export const DEFAULT_MAINTENANCE_URL = 'http://127.0.0.1:8082';
const SETTING = '--maintenance-url or CAREEN_MAINTENANCE_URL';

type Schemas = MaintenanceSession.components['schemas'];
type SessionRequest = Schemas['CreateSessionDto'];
type HostAction = Schemas['HostActionDto'];

interface StartOptions {
  file?: string;
  hosts?: string;
  label?: string[];
  rack?: string;
  haGroup?: string;
  // The kind and the policy as typed: the service refuses any other with 400 naming what it takes.
  hostAction?: Schemas['HostActionDto']['kind'];
  seconds?: number;
  agentVersion?: string;
  actionsAt?: string;
  replyTimeout?: number;
  replyTimeoutPolicy?: SessionRequest['reply_timeout_policy'];
  parallel?: number;
  org?: string;
}

const GROUP_COLUMNS: readonly Column<Schemas['InstanceGroupResponse']>[] = [
  { header: 'GROUP', value: (group) => group.group_id },
  { header: 'PROJECT', value: (group) => group.project_id },
  { header: 'NAME', value: (group) => group.group_name },
  { header: 'MAX IMPACTED', value: (group) => String(group.max_impacted_members) },
  { header: 'RECOVERY (S)', value: (group) => String(group.recovery_time) },
  { header: 'ANTI-AFFINITY', value: (group) => (group.anti_affinity_group ? 'yes' : 'no') },
  { header: 'DECLARED BY', value: (group) => group.updated_by },
];

const INSTANCE_COLUMNS: readonly Column<Schemas['InstanceConstraintResponse']>[] = [
  { header: 'INSTANCE', value: (instance) => instance.instance_id },
  { header: 'PROJECT', value: (instance) => instance.project_id },
  { header: 'GROUP', value: (instance) => instance.group_id ?? '-' },
  { header: 'MIGRATION', value: (instance) => instance.migration_type },
  { header: 'LEAD TIME (S)', value: (instance) => String(instance.lead_time) },
  { header: 'MAX DOWN (S)', value: (instance) => String(instance.max_interruption_time) },
];

const SESSION_COLUMNS: readonly Column<Schemas['SessionResponse']>[] = [
  { header: 'SESSION', value: (session) => session.session_id },
  { header: 'STATE', value: (session) => `${session.state}${session.paused ? ' (paused)' : ''}` },
  { header: 'HOSTS', value: (session) => session.hosts_summary },
  { header: 'HOST ACTION', value: (session) => session.host_action.kind },
  { header: 'CREATED', value: (session) => session.created_at },
];

function whole(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('a whole number');
  return parsed;
}

/** The request body from the options (or the file, which the options then refine). */
export async function sessionRequest(options: StartOptions): Promise<SessionRequest> {
  // The file goes as written (Careen or Fenix fields): the service checks it and names what is wrong.
  const body = (options.file ? await readJsonObject(options.file) : {}) as SessionRequest;
  if (options.hosts !== undefined) body.hosts = parseMembers(options.hosts);
  const labels = Object.fromEntries(
    (options.label ?? []).map((label) => {
      const at = label.indexOf('=');
      if (at <= 0) throw new CliError(`--label "${label}" must be key=value`);
      return [label.slice(0, at), label.slice(at + 1)];
    }),
  );
  const selector: Schemas['HostSelectorDto'] = {
    // The document types labels as an object with no properties; they are strings by key.
    ...(Object.keys(labels).length > 0 ? { labels } : {}),
    ...(options.rack ? { racks: parseMembers(options.rack) } : {}),
    ...(options.haGroup ? { ha_groups: parseMembers(options.haGroup) } : {}),
  };
  if (Object.keys(selector).length > 0) body.selector = selector;
  if (options.hostAction !== undefined || options.seconds !== undefined || options.agentVersion !== undefined)
    body.host_action = hostAction(options, body.host_action);
  if (options.actionsAt !== undefined) body.actions_at = options.actionsAt;
  if (options.replyTimeout !== undefined) body.reply_timeout_seconds = options.replyTimeout;
  if (options.replyTimeoutPolicy !== undefined) body.reply_timeout_policy = options.replyTimeoutPolicy;
  if (options.parallel !== undefined) body.max_parallel_hosts = options.parallel;
  if (options.org !== undefined) body.org = options.org;
  if (body.hosts === undefined && body.selector === undefined)
    throw new CliError('say which hosts: --hosts, or --label, --rack or --ha-group (or a --file that does)');
  return body;
}

/** The flags each host action takes beside --host-action; any other is refused, not dropped. */
const HOST_ACTION_FLAGS = {
  seconds: ['--seconds', 'simulated'],
  agentVersion: ['--agent-version', 'agent-upgrade'],
} as const;

/** The host action of the options, over the file's (a kind name or an object); manual by default. */
function hostAction(options: StartOptions, fromFile: SessionRequest['host_action'] | string | undefined) {
  const file = typeof fromFile === 'string' ? { kind: fromFile as HostAction['kind'] } : fromFile;
  const kind = options.hostAction ?? file?.kind ?? 'manual';
  for (const [option, [flag, takenBy]] of Object.entries(HOST_ACTION_FLAGS))
    if (options[option as keyof typeof HOST_ACTION_FLAGS] !== undefined && kind !== takenBy)
      throw new CliError(
        `${flag} is only for --host-action ${takenBy}; this session's host action would be ${kind}`,
      );
  const action: HostAction = { ...(file?.kind === kind ? file : {}), kind };
  if (options.seconds !== undefined) action.seconds = options.seconds;
  if (options.agentVersion !== undefined) action.version = options.agentVersion;
  return action;
}

export function registerMaintenanceCommands(program: Command, services: CliServices): void {
  const maintenance = program
    .command('maintenance')
    .description('planned maintenance sessions: hosts taken out while their applications are asked')
    .option(
      '--maintenance-url <url>',
      `maintenance service URL (default: CAREEN_MAINTENANCE_URL, else ${DEFAULT_MAINTENANCE_URL})`,
    );

  /** The maintenance service, asked with the caller's login. */
  const service = (command: Command) => {
    const flag = command.optsWithGlobals<{ maintenanceUrl?: string }>().maintenanceUrl;
    const name = 'maintenance service';
    const url = serviceBaseUrl(name, flag ?? services.env.maintenanceUrl ?? DEFAULT_MAINTENANCE_URL);
    return serviceCommandContext<MaintenanceSession.paths>(command, services, {
      name,
      url,
      setting: SETTING,
    });
  };

  maintenance
    .command('start')
    .description('start a session over hosts given by id or by selector; prints the session')
    .option('--file <file>', 'the request as JSON (Careen or Fenix fields), refined by the options')
    .option('--hosts <ids>', 'node ids, comma-separated')
    .option('--label <key=value>', 'hosts with this label (repeatable)', repeated)
    .option('--rack <racks>', 'hosts in these racks, comma-separated')
    .option('--ha-group <groups>', 'hosts in these HA groups, comma-separated')
    .option('--host-action <kind>', 'manual (default), simulated, external or agent-upgrade')
    .option('--seconds <n>', 'simulated: how long each host stays in maintenance', whole)
    .option('--agent-version <version>', 'agent-upgrade: the agent version to roll each host to')
    .option('--actions-at <time>', 'when the hosts start going (RFC 3339); default: once the projects answer')
    .option('--reply-timeout <seconds>', 'seconds a project has to answer each state', whole)
    .option('--reply-timeout-policy <policy>', 'proceed (default), skip-host or fail')
    .option('--parallel <n>', 'hosts of different HA groups maintained at once (default 1)', whole)
    .option('--org <org>', 'org of the hosts (default: your own)')
    .action(async (options: StartOptions, command: Command) => {
      const { context, ask } = await service(command);
      const body = await sessionRequest(options);
      const session = await ask((api) => api.POST('/v1/maintenance', { body }));
      context.printer.result(
        session,
        `started session ${session.session_id} over ${session.hosts.length} host(s); ${describeHostAction(session)}`,
      );
    });

  maintenance
    .command('list')
    .description("the org's sessions, newest first")
    .option('--org <org>', 'org (hub admins; default: your own)')
    .action(async (options: { org?: string }, command: Command) => {
      const { context, ask } = await service(command);
      const answer = await ask((api) =>
        api.GET('/v1/maintenance', { params: { query: { org: options.org || undefined } } }),
      );
      context.printer.list(answer, SESSION_COLUMNS, 'no maintenance sessions');
    });

  maintenance
    .command('show')
    .description('a session: hosts, projects and its timeline')
    .argument('<session>', 'session id')
    .action(async (id: string, _options: object, command: Command) => {
      const { context, ask } = await service(command);
      const session = await ask((api) =>
        api.GET('/v1/maintenance/{session}', { params: { path: { session: id } } }),
      );
      if (context.printer.format === 'json') context.printer.record(session);
      else context.io.stdout.write(renderSession(session, services.now(), Number.POSITIVE_INFINITY));
    });

  maintenance
    .command('watch')
    .description('follow a session live; exits 0 when it is done, 1 when it fails')
    .argument('<session>', 'session id')
    .option(
      '--interval <seconds>',
      'how often to look again',
      (value) => Math.max(0.2, Number(value) || 2),
      2,
    )
    .action(async (id: string, options: { interval: number }, command: Command) => {
      const { context, ask } = await service(command);
      await watchLive(context.io, context.printer.format, options.interval, async () => {
        const session = await ask((api) =>
          api.GET('/v1/maintenance/{session}', { params: { path: { session: id } } }),
        );
        const failed =
          session.state === 'MAINTENANCE_FAILED' &&
          new CliError(`maintenance session ${id} failed: ${session.failure ?? 'no reason given'}`);
        return {
          screen: renderSession(session, services.now()),
          lines: sessionChangeLines(session),
          value: session,
          outcome: failed || (FINISHED_SESSION_STATES.includes(session.state) ? 'done' : 'running'),
        };
      });
    });

  for (const [name, description, route] of [
    [
      'pause',
      'pause a session: no further host is started until it is resumed; hosts under way finish',
      '/v1/maintenance/{session}/pause',
    ],
    ['resume', 'resume a paused session', '/v1/maintenance/{session}/resume'],
  ] as const) {
    maintenance
      .command(name)
      .description(description)
      .argument('<session>', 'session id')
      .action(async (id: string, _options: object, command: Command) => {
        const { context, ask } = await service(command);
        const session = await ask((api) => api.POST(route, { params: { path: { session: id } } }));
        context.printer.result(
          session,
          `session ${id} ${session.paused ? 'paused' : 'resumed'} (${session.state})`,
        );
      });
  }

  maintenance
    .command('constraints')
    .description(
      "the instance groups and instances the projects' VNF managers declared (Fenix's constraints)",
    )
    .option('--project <project>', "one project's only")
    .option('--org <org>', 'org (hub admins; default: your own)')
    .action(async (options: { project?: string; org?: string }, command: Command) => {
      const { context, ask } = await service(command);
      const query = { org: options.org || undefined, project_id: options.project || undefined };
      const [groups, instances] = await Promise.all([
        ask((api) => api.GET('/v1/instance_group', { params: { query } })),
        ask((api) => api.GET('/v1/instance', { params: { query } })),
      ]);
      if (context.printer.format === 'json') return context.printer.record({ groups, instances });
      context.printer.list(groups, GROUP_COLUMNS, 'no instance groups declared');
      context.io.stdout.write('\n');
      context.printer.list(instances, INSTANCE_COLUMNS, 'no instances declared');
    });

  maintenance
    .command('abort')
    .description('abort a session: hosts under way back in service, HA-group slots given back, projects told')
    .argument('<session>', 'session id')
    .action(async (id: string, _options: object, command: Command) => {
      const { context, ask } = await service(command);
      await ask((api) => api.DELETE('/v1/maintenance/{session}', { params: { path: { session: id } } }));
      context.printer.note(`session ${id} aborted`);
    });

  maintenance
    .command('complete-host')
    .description("report a host's maintenance done (host action manual or external)")
    .argument('<session>', 'session id')
    .argument('<host>', 'node id')
    .action(async (id: string, host: string, _options: object, command: Command) => {
      const { context, ask } = await service(command);
      const session = await ask((api) =>
        api.POST('/v1/maintenance/{session}/hosts/{host}/complete', {
          params: { path: { session: id, host } },
        }),
      );
      const phase = session.hosts.find((each) => each.host === host);
      // A host back in service may still wait for something: the service's reason says what.
      const waits = phase?.reason ? `; ${phase.reason}` : '';
      context.printer.result(
        session,
        `host ${host} back in service (${phase?.phase ?? 'unknown'}, ${since(phase?.since, services.now())})${waits}`,
      );
    });
}
