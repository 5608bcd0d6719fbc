/**
 * One process of the fleet bench's simulator (simulator-processes.ts starts it): a slice of the
 * fleet under a node prefix of its own. Its settings come as JSON in its one argument; four
 * times a second it tells its parent over IPC the requests its agents sent since the last
 * report, how many have read the feed to its head, their versions, when a management-policy
 * change reached them (epoch ms), the changes an agent was given out of commit order (an id not
 * above every id it had been given before), and the warnings they logged (a status write or a
 * download that failed and is tried again), by message and why. It stops its agents and exits
 * when told `stop`.
 */
import { startSimulatedFleet, type SimulatedFleetOptions } from '@careen/agent/src/index';
import { createLogger } from '@careen/telemetry';

/** What a worker is told: its slice of the fleet, registered already, every node with one token. */
export type WorkerSettings = Pick<
  SimulatedFleetOptions,
  'exchangeUrl' | 'agbotUrl' | 'org' | 'admin' | 'nodes' | 'haGroups' | 'nodePrefix' | 'initialVersion'
> &
  Required<Pick<SimulatedFleetOptions, 'pollSeconds' | 'startRate'>> & {
    token: string;
    /** Its agents' connections leave from 127.<sourceBlock>.x.y, one address per agent. */
    sourceBlock: number;
  };

export interface WorkerReport {
  kind: 'report';
  requests: { exchange: number; agbot: number };
  caughtUp: number;
  versions: Record<string, number>;
  /** When a management-policy change reached one of its agents, since the last report. */
  policySeenAt: number[];
  /** Changes given to an agent out of commit order, since the last report: must stay 0. */
  outOfOrder: number;
  /** The first few of them, each with the page before and the page it came in, to read. */
  outOfOrderCases: string[];
  /** Warnings its agents logged since the last report, by message and why. */
  warnings: Record<string, number>;
}

const REPORT_MS = 250;

async function main(): Promise<void> {
  const [, , argument] = process.argv;
  if (!argument) throw new Error('usage: fleet-worker <settings as JSON>');
  const { token, sourceBlock, ...settings } = JSON.parse(argument) as WorkerSettings;
  let requests = { exchange: 0, agbot: 0 };
  let policySeenAt: number[] = [];
  let outOfOrder = 0;
  let outOfOrderCases: string[] = [];
  let casesTold = 0;
  /** The newest change id each agent has been given, and the ids of its previous page. */
  const newestSeen = new Map<string, number>();
  const previousPage = new Map<string, number[]>();
  let warnings: Record<string, number> = {};
  // Only warnings and worse reach it: each is counted by its message and its error, with the
  // numbers in the error (a node, an address, a time) left out so that alike errors count as one.
  const countWarnings = {
    write(line: string): void {
      const { msg, error } = JSON.parse(line) as { msg: string; error?: string };
      const why = error ? `${msg} (${error.replace(/\d+/g, 'N').slice(0, 100)})` : msg;
      warnings[why] = (warnings[why] ?? 0) + 1;
    },
  };
  const fleet = await startSimulatedFleet({
    ...settings,
    registered: true,
    nodeToken: () => token,
    // The hub is on this machine's loopback, where any 127.x.y.z is this machine: as many
    // addresses as agents, so that no address runs short of local ports.
    sourceAddress: (i) => `127.${sourceBlock}.${Math.floor(i / 250)}.${(i % 250) + 1}`,
    logger: createLogger('bench-fleet', { level: 'warn', destination: countWarnings }),
    observeRequests: (target) => void (requests[target] += 1),
    observeChanges: (node, changes) => {
      if (changes.some((change) => change.resource === 'managementPolicy')) policySeenAt.push(Date.now());
      const ids = changes.map((change) => change.id);
      let newest = newestSeen.get(node) ?? 0;
      const before = newest;
      let misplaced = 0;
      for (const id of ids) {
        if (id <= newest) misplaced++;
        newest = Math.max(newest, id);
      }
      if (misplaced > 0 && casesTold++ < 3) {
        const previous = previousPage.get(node) ?? [];
        outOfOrderCases.push(
          `${node}: newest before ${before}; previous page [${previous.join(',')}]; this page [${ids.join(',')}]`,
        );
      }
      outOfOrder += misplaced;
      newestSeen.set(node, newest);
      previousPage.set(node, ids);
    },
  });
  const report = () => {
    const message: WorkerReport = {
      kind: 'report',
      requests,
      caughtUp: fleet.agents.filter((agent) => agent.core.caughtUp).length,
      versions: fleet.versions(),
      policySeenAt,
      outOfOrder,
      outOfOrderCases,
      warnings,
    };
    requests = { exchange: 0, agbot: 0 };
    policySeenAt = [];
    outOfOrder = 0;
    outOfOrderCases = [];
    warnings = {};
    process.send!(message);
  };
  const timer = setInterval(report, REPORT_MS);
  process.send!({ kind: 'started' });
  process.on('message', (message) => {
    if (message !== 'stop') return;
    clearInterval(timer);
    report();
    void fleet.stop().then(() => process.exit(0));
  });
  // The parent gone (killed, crashed) leaves nothing running.
  process.once('disconnect', () => process.exit(1));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
