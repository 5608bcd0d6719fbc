/** The "where is everything" text printed once the platform is ready. */
import type { LocalCredentials } from './credentials';
import {
  DEMO_ADMIN,
  DEMO_AGENT_VERSION,
  DEMO_DEPLOYMENT_POLICY,
  DEMO_NODE_PREFIX,
  DEMO_ORG,
  DEMO_PROJECT,
} from './demo-names';
import type { LocalPlatform } from './local-platform';
import type { StartConfig } from './start-config';

/** The first line of the summary; scripts wait for it. */
export const READY_LINE = 'Careen is ready.';

export function readySummary(
  config: StartConfig,
  platform: LocalPlatform,
  credentials: LocalCredentials,
  cli: boolean,
): string {
  const width = Math.max(0, ...platform.services.map((child) => child.service.name.length));
  const services = platform.services.map(
    (child) => `    ${child.service.name.padEnd(width)}  ${child.url}   API docs: ${child.url}/docs`,
  );
  const passwordSource = credentials.rootPasswordFromEnv
    ? 'from CAREEN_ROOT_PASSWORD'
    : `kept in ${config.state.credentials}`;
  const lines = [
    '',
    READY_LINE,
    '',
    '  Services',
    ...(services.length > 0 ? services : ['    (none: no hub service sources under apps/)']),
    '',
    ...(platform.consoleUrl()
      ? [
          `  Console     ${platform.consoleUrl()}   sign in with a user below (the services' APIs are under it too:`,
          `              ${platform.consoleUrl()}/exchange/v1/…, /agbot, /maintenance, /orchestrator, /notifier)`,
          '',
        ]
      : []),
    `  Hub admin   org "root", user "root", password ${credentials.rootPassword}`,
    `              (${passwordSource})`,
    `  Postgres    ${platform.postgres?.url ?? '-'}`,
    `  NATS        ${platform.nats?.url ?? '-'} (JetStream, JWT authorization; services' creds ${platform.natsCredsFile ?? '-'})`,
    `  Logs        ${config.state.logs}`,
    `  State       ${config.state.root}`,
    ...(config.state.postgres.startsWith(config.state.root)
      ? []
      : [
          `              (Postgres data in ${config.state.postgres}: Postgres's own user cannot reach the state folder)`,
        ]),
  ];
  const demo = platform.demo;
  if (demo) {
    lines.push(
      '',
      `  Demo fleet  ${demo.nodes} simulated agents ${demo.nodeIds.join(' … ')} of org "${DEMO_ORG}", at agent version ${DEMO_AGENT_VERSION},`,
      `              in ${demo.haGroups} HA groups ${DEMO_NODE_PREFIX}-group-1 … ${DEMO_NODE_PREFIX}-group-${demo.haGroups}; log ${demo.logFile}`,
      `  Demo admin  org "${DEMO_ORG}", user "${DEMO_ADMIN}", password ${credentials.demoPassword}`,
      `  Demo app    deployment policy "${DEMO_DEPLOYMENT_POLICY}" of project "${DEMO_PROJECT}" on half the fleet` +
        (demo.appHosts.length > 0 ? `: ${listed(demo.appHosts)}` : '') +
        (demo.vnfManager
          ? '; the reference VNF manager answers its maintenance events (by webhook, with the notifier)'
          : ''),
    );
    const agbot = platform.services.find((child) => child.service.name === 'agbot');
    if (agbot) {
      const fleetLock = (route: string) =>
        `    curl -H 'fleet-lock-protocol: true' -d '${JSON.stringify({
          client_params: { id: demo.nodeIds[0], group: demo.firstGroup ?? 'default' },
        })}' ${agbot.url}/v1/${route}`;
      lines.push(
        `  FleetLock   Zincati's fleet_lock strategy at ${agbot.url}, for the nodes of org "${DEMO_ORG}"; take and release a reboot slot:`,
        fleetLock('pre-reboot'),
        fleetLock('steady-state'),
      );
    }
  }
  if (cli) {
    lines.push(
      '',
      '  CLI         install the careen and careen-agent commands once with "npm link"',
      '              (or run "npm run careen -- …" instead of careen):',
      `    careen login --exchange ${platform.exchangeUrl()} --org root --user root`,
      '    careen --help',
    );
  }
  lines.push('', 'Press Ctrl-C to stop everything.', '');
  return lines.join('\n');
}

/** Names, the first few of them when there are many. */
function listed(names: readonly string[], shown = 6): string {
  if (names.length <= shown) return names.join(', ');
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}
