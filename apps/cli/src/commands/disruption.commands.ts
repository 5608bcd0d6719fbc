/**
 * `careen window|freeze|budget|gate …`: an org's disruption controls, published whole from a JSON
 * file like services and deployment policies; and `careen window next --node N`, when the agbot's
 * gate next lets the node be disrupted, and why not now.
 */
import { type Agbot, type Exchange } from '@careen/api-client';
import { inHours } from '@careen/disruption';
import { type Command } from 'commander';
import { askService } from '../http/service-url';
import { type CliServices, orgCommandContext } from './command-context';
import { resolveAgbotUrl } from './deploycheck-request';
import { type FileResource, registerFileResourceCommands } from './file-resource.commands';

type Schemas = Exchange.components['schemas'];
type Outlook = Agbot.components['schemas']['DisruptionOutlookResponse'];

const SELECTOR_HELP =
  '"selector": {"labels", "racks", "haGroups", "nodes"} (criteria intersect; none: every node)';
const selectorOf = (control: { selector: Schemas['DisruptionSelectorDto'] }) => {
  const { labels = {}, racks = [], haGroups = [], nodes = [] } = control.selector;
  const parts = [
    ...Object.entries(labels).map(([key, value]) => `${key}=${value}`),
    ...racks.map((rack) => `rack ${rack}`),
    ...haGroups.map((group) => `group ${group}`),
    ...nodes.map((node) => `node ${node}`),
  ];
  return parts.length === 0 ? 'every node' : parts.join(', ');
};

export const WINDOW_RESOURCE: FileResource<Schemas['WindowResponse']> = {
  command: 'window',
  description: "manage an org's maintenance windows: disruptions start only inside one that covers the node",
  noun: 'maintenance window',
  plural: 'maintenance windows',
  key: 'name',
  keyRule: "window name: letters, digits, '-' or '_'",
  fileHelp: `the window, as JSON: {"days": ["mon", …], "start": "01:00" | "rrule": "FREQ=…", "durationMinutes", "cutoffMinutes", "timeZone", ${SELECTOR_HELP}}`,
  columns: [
    { header: 'NAME', value: (window) => window.name },
    {
      header: 'WHEN',
      value: (window) => (window.rrule ? window.rrule : `${(window.days ?? []).join(',')} ${window.start}`),
    },
    { header: 'MINUTES', value: (window) => `${window.durationMinutes} (cutoff ${window.cutoffMinutes})` },
    { header: 'ZONE', value: (window) => window.timeZone },
    { header: 'COVERS', value: selectorOf },
  ],
  listFilters: [],
  publish: (exchange, org, name, file) =>
    exchange((api) =>
      api.PUT('/v1/orgs/{org}/windows/{name}', {
        params: { path: { org, name } },
        body: file as Schemas['PutWindowDto'],
      }),
    ),
  list: (exchange, org) =>
    exchange((api) => api.GET('/v1/orgs/{org}/windows', { params: { path: { org } } })),
  show: (exchange, org, name) =>
    exchange((api) => api.GET('/v1/orgs/{org}/windows/{name}', { params: { path: { org, name } } })),
  remove: (exchange, org, name) =>
    exchange((api) => api.DELETE('/v1/orgs/{org}/windows/{name}', { params: { path: { org, name } } })),
};

export const FREEZE_RESOURCE: FileResource<Schemas['FreezeResponse']> = {
  command: 'freeze',
  description: "manage an org's freezes: no disruption starts on a covered node while one lasts",
  noun: 'freeze',
  plural: 'freezes',
  key: 'name',
  keyRule: "freeze name: letters, digits, '-' or '_'",
  fileHelp: `the freeze, as JSON: {"from": ISO 8601, "until": ISO 8601, ${SELECTOR_HELP}}`,
  columns: [
    { header: 'NAME', value: (freeze) => freeze.name },
    { header: 'FROM', value: (freeze) => freeze.from },
    { header: 'UNTIL', value: (freeze) => freeze.until },
    { header: 'COVERS', value: selectorOf },
  ],
  listFilters: [],
  publish: (exchange, org, name, file) =>
    exchange((api) =>
      api.PUT('/v1/orgs/{org}/freezes/{name}', {
        params: { path: { org, name } },
        body: file as Schemas['PutFreezeDto'],
      }),
    ),
  list: (exchange, org) =>
    exchange((api) => api.GET('/v1/orgs/{org}/freezes', { params: { path: { org } } })),
  show: (exchange, org, name) =>
    exchange((api) => api.GET('/v1/orgs/{org}/freezes/{name}', { params: { path: { org, name } } })),
  remove: (exchange, org, name) =>
    exchange((api) => api.DELETE('/v1/orgs/{org}/freezes/{name}', { params: { path: { org, name } } })),
};

export const BUDGET_RESOURCE: FileResource<Schemas['BudgetResponse']> = {
  command: 'budget',
  description: "manage an org's disruption budgets: at most so many covered nodes down at once",
  noun: 'disruption budget',
  plural: 'disruption budgets',
  key: 'name',
  keyRule: "budget name: letters, digits, '-' or '_'",
  fileHelp: `the budget, as JSON: {"maxUnavailable": 3 | "10%", ${SELECTOR_HELP}}`,
  columns: [
    { header: 'NAME', value: (budget) => budget.name },
    { header: 'MAX DOWN', value: (budget) => String(budget.maxUnavailable) },
    { header: 'COVERS', value: selectorOf },
  ],
  listFilters: [],
  publish: (exchange, org, name, file) =>
    exchange((api) =>
      api.PUT('/v1/orgs/{org}/budgets/{name}', {
        params: { path: { org, name } },
        body: file as Schemas['PutBudgetDto'],
      }),
    ),
  list: (exchange, org) =>
    exchange((api) => api.GET('/v1/orgs/{org}/budgets', { params: { path: { org } } })),
  show: (exchange, org, name) =>
    exchange((api) => api.GET('/v1/orgs/{org}/budgets/{name}', { params: { path: { org, name } } })),
  remove: (exchange, org, name) =>
    exchange((api) => api.DELETE('/v1/orgs/{org}/budgets/{name}', { params: { path: { org, name } } })),
};

export const GATE_RESOURCE: FileResource<Schemas['GateResponse']> = {
  command: 'gate',
  description: "manage an org's Prometheus alert gates: no disruption starts while a matching alert fires",
  noun: 'alert gate',
  plural: 'alert gates',
  key: 'name',
  keyRule: "gate name: letters, digits, '-' or '_'",
  fileHelp: `the gate, as JSON: {"prometheusUrl", "matchers": ["alertname=\\"NodeDown\\""], "scope": "all" | "node" | "haGroup" | "label:<key>", "alertLabel", "onUnavailable": "closed" | "open", "evaluationSeconds", ${SELECTOR_HELP}}`,
  columns: [
    { header: 'NAME', value: (gate) => gate.name },
    { header: 'PROMETHEUS', value: (gate) => gate.prometheusUrl },
    { header: 'MATCHERS', value: (gate) => gate.matchers.join(', ') },
    { header: 'SCOPE', value: (gate) => gate.scope },
    { header: 'UNAVAILABLE', value: (gate) => gate.onUnavailable },
    { header: 'COVERS', value: selectorOf },
  ],
  listFilters: [],
  publish: (exchange, org, name, file) =>
    exchange((api) =>
      api.PUT('/v1/orgs/{org}/gates/{name}', {
        params: { path: { org, name } },
        body: file as Schemas['PutGateDto'],
      }),
    ),
  list: (exchange, org) => exchange((api) => api.GET('/v1/orgs/{org}/gates', { params: { path: { org } } })),
  show: (exchange, org, name) =>
    exchange((api) => api.GET('/v1/orgs/{org}/gates/{name}', { params: { path: { org, name } } })),
  remove: (exchange, org, name) =>
    exchange((api) => api.DELETE('/v1/orgs/{org}/gates/{name}', { params: { path: { org, name } } })),
};

/** What the gate says of a node, for people. Pure. */
export function describeOutlook(outlook: Outlook, now: Date): string {
  const lines: string[] = [];
  if (outlook.mayStart) {
    const open = outlook.windows.filter((window) => window.open);
    lines.push(
      `node ${outlook.node} may be disrupted now` +
        (open.length > 0
          ? ` (window ${open.map((window) => `"${window.name}" until ${window.lastStart}`).join(', ')})`
          : ''),
    );
  } else {
    lines.push(`node ${outlook.node} may not be disrupted now: ${outlook.refusal?.message ?? 'refused'}`);
    // The clock's next opening; when the clock lets it go now, what refuses it ends by itself.
    if (outlook.nextStart === null) lines.push('next start: none within a year');
    else if (outlook.nextStart !== outlook.at)
      lines.push(`next start: ${outlook.nextStart} (${inHours(now, new Date(outlook.nextStart))})`);
    if (outlook.refusal?.reason === 'budget')
      lines.push('it may go as soon as a holder of the budget is done');
  }
  if (outlook.busy)
    lines.push(
      `busy until ${outlook.busy.until}: ${outlook.busy.reason} (declared by ${outlook.busy.declaredBy})`,
    );
  for (const budget of outlook.budgets)
    lines.push(
      `budget "${budget.name}": ${budget.down.length} of ${budget.allowed} down (${budget.covered} covered)`,
    );
  for (const group of outlook.instanceGroups) {
    const impacted = group.impacted.reduce((sum, each) => sum + each.instances, 0);
    lines.push(
      `instance group "${group.group}" of project ${group.project}: ${impacted} of ${group.maxImpacted} impacted` +
        (impacted > 0 ? ` (on ${group.impacted.map((each) => each.node).join(', ')})` : '') +
        `, ${group.own} on this node` +
        (group.recoversUntil ? `; recovers until ${group.recoversUntil}` : ''),
    );
  }
  return lines.join('\n');
}

type Calendar = Exchange.components['schemas']['CalendarResponse'];

/** The windows' openings and the freezes of a calendar, each opening in its window's zone. Pure. */
export function describeCalendar(calendar: Calendar): string {
  const lines = [`from ${calendar.from} until ${calendar.until}:`];
  if (calendar.windows.length === 0 && calendar.freezes.length === 0)
    lines.push('no windows or freezes: the nodes may be disrupted at any time');
  for (const freeze of calendar.freezes)
    lines.push(`freeze "${freeze.name}" (${freeze.covers}): from ${freeze.from} until ${freeze.until}`);
  for (const window of calendar.windows) {
    lines.push(`window "${window.name}" (${window.covers}), in ${window.timeZone}:`);
    if (window.openings.length === 0) lines.push('  no opening');
    const day = new Intl.DateTimeFormat('en-GB', {
      timeZone: window.timeZone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
    });
    const time = new Intl.DateTimeFormat('en-GB', {
      timeZone: window.timeZone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    for (const opening of window.openings) {
      const [start, lastStart, end] = [opening.start, opening.lastStart, opening.end].map(
        (at) => new Date(at),
      ) as [Date, Date, Date];
      const cutoff = lastStart < end ? ` (no new step after ${time.format(lastStart)})` : '';
      lines.push(`  ${day.format(start)} ${time.format(start)}–${time.format(end)}${cutoff}`);
    }
  }
  return lines.join('\n');
}

const AGBOT_URL_OPTION = [
  '--agbot-url <url>',
  'agbot URL (default: CAREEN_AGBOT_URL, else http://127.0.0.1:8081)',
] as const;
const NODE_ORG_OPTION = ['--org <org>', "the node's org (default: CAREEN_ORG, else your own org)"] as const;

/** `careen node busy|free`: a node's busy declaration, kept by the agbot. */
export function registerBusyCommands(node: Command, services: CliServices): void {
  node
    .command('busy')
    .description('declare a node busy: no disruption starts on it until it is free or the time is up')
    .argument('<id>', 'node id')
    .requiredOption('--reason <text>', 'what it is busy with, such as "nightly backup"')
    .requiredOption('--for <seconds>', 'how long it lasts unless declared again or freed (1–86400)')
    .option(...NODE_ORG_OPTION)
    .option(...AGBOT_URL_OPTION)
    .action(
      async (
        id: string,
        options: { reason: string; for: string; org?: string; agbotUrl?: string },
        command: Command,
      ) => {
        const { context, ask, org } = await agbotContext(command, services, options);
        const busy = await ask((api) =>
          api.PUT('/v1/orgs/{org}/nodes/{node}/busy', {
            params: { path: { org, node: id } },
            body: { reason: options.reason, seconds: Number(options.for) },
          }),
        );
        context.printer.result(busy, `node ${id} is busy until ${busy.until}: ${busy.reason}`);
      },
    );

  node
    .command('free')
    .description('declare a busy node free again')
    .argument('<id>', 'node id')
    .option(...NODE_ORG_OPTION)
    .option(...AGBOT_URL_OPTION)
    .action(async (id: string, options: { org?: string; agbotUrl?: string }, command: Command) => {
      const { context, ask, org } = await agbotContext(command, services, options);
      await ask((api) =>
        api.DELETE('/v1/orgs/{org}/nodes/{node}/busy', { params: { path: { org, node: id } } }),
      );
      context.printer.note(`node ${id} is free`);
    });
}

/** The org, and `ask`, which runs a request of the agbot's and names the agbot in its failures. */
async function agbotContext(
  command: Command,
  services: CliServices,
  options: { org?: string; agbotUrl?: string },
) {
  const agbotUrl = resolveAgbotUrl(options.agbotUrl, services.env);
  const { context, org } = await orgCommandContext(command, services, options.org);
  const agbot = await context.serviceCalls<Agbot.paths>(agbotUrl);
  const ask: typeof agbot = (request) =>
    askService('agbot', agbotUrl, '--agbot-url or CAREEN_AGBOT_URL', () => agbot(request));
  return { context, ask, org };
}

export function registerDisruptionCommands(program: Command, services: CliServices): void {
  const window = registerFileResourceCommands(program, services, WINDOW_RESOURCE);
  registerFileResourceCommands(program, services, FREEZE_RESOURCE);
  registerFileResourceCommands(program, services, BUDGET_RESOURCE);
  registerFileResourceCommands(program, services, GATE_RESOURCE);

  window
    .command('calendar')
    .description(
      "the org's window openings and freezes over the coming days, each opening in its window's zone",
    )
    .option('--days <n>', 'how many days (1–31)', '7')
    .option('--from <instant>', 'where to start, an ISO 8601 instant with its offset (default: now)')
    .option('--org <org>', 'the org (default: CAREEN_ORG, else your own org)')
    .action(async (options: { days: string; from?: string; org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const calendar = await exchange((api) =>
        api.GET('/v1/orgs/{org}/disruption-calendar', {
          params: {
            path: { org },
            query: { days: Number(options.days), ...(options.from && { from: options.from }) },
          },
        }),
      );
      context.printer.result(calendar, describeCalendar(calendar));
    });

  window
    .command('next')
    .description(
      'when freezes, windows, alert gates, budgets and instance groups next let a node be disrupted, and why not now',
    )
    .requiredOption('--node <id>', 'node id')
    .option(...NODE_ORG_OPTION)
    .option(...AGBOT_URL_OPTION)
    .action(async (options: { node: string; org?: string; agbotUrl?: string }, command: Command) => {
      const { context, ask, org } = await agbotContext(command, services, options);
      const outlook = await ask((api) =>
        api.GET('/v1/orgs/{org}/nodes/{node}/disruption', { params: { path: { org, node: options.node } } }),
      );
      context.printer.result(outlook, describeOutlook(outlook, services.now()));
    });
}
