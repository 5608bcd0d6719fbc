/** `careen upgrade node|history`: one node's agent upgraded on its own, and the history of such upgrades. */
import { type Command } from 'commander';
import { type CliServices } from './command-context';
import { ORCHESTRATOR_URL_OPTION, orchestratorContext, query } from './orchestrator-service';
import { positiveWhole } from './strategy.commands';

interface UpgradeAnswer {
  id: string;
  node_id: string;
  from_version: string | null;
  to_version: string;
  strategy: string;
  state: string;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export function registerUpgradeCommands(program: Command, services: CliServices): void {
  const upgrade = program
    .command('upgrade')
    .description("single-node agent upgrades, each attempt kept in the node's history")
    .option(...ORCHESTRATOR_URL_OPTION);

  upgrade
    .command('node')
    .description("upgrade one node's agent to a version; refused with the reason when the node cannot be now")
    .argument('<node>', 'node id')
    .requiredOption('--agent-version <version>', 'the agent version')
    .option('--strategy <strategy>', 'install strategy the agent uses', 'tarball')
    .option(
      '--location <url>',
      "fetch the package here instead of the exchange (still checked against the exchange's sha256)",
    )
    .option('--org <org>', "the node's org (hub admins; default: your own)")
    .action(
      async (
        node: string,
        options: { agentVersion: string; strategy: string; location?: string; org?: string },
        command: Command,
      ) => {
        const { context, ask } = await orchestratorContext(command, services);
        const { agentVersion, ...rest } = options;
        const asked = await ask((client) =>
          client.post<UpgradeAnswer>('/v1/upgrades', { node_id: node, version: agentVersion, ...rest }),
        );
        context.printer.result(
          asked,
          `upgrade ${asked.id}: node ${node} from ${asked.from_version ?? 'unknown'} to ${asked.to_version} (${asked.state})`,
        );
      },
    );

  upgrade
    .command('history')
    .description('upgrade attempts, newest first')
    .option('--node <node>', 'only this node')
    .option(
      '--state <state>',
      'only in this state: pending, downloading, installing, success, failed, rolled-back',
    )
    .option('--limit <n>', 'at most this many (default 50)', positiveWhole)
    .option('--org <org>', 'org (hub admins; default: your own)')
    .action(
      async (options: { node?: string; state?: string; limit?: number; org?: string }, command: Command) => {
        const { context, ask } = await orchestratorContext(command, services);
        const answer = await ask((client) =>
          client.get<{ items: UpgradeAnswer[]; total: number }>(
            `/v1/upgrades${query({ node_id: options.node, state: options.state, limit: options.limit, org: options.org })}`,
          ),
        );
        context.printer.list(
          answer,
          [
            { header: 'NODE', value: (row) => row.node_id },
            { header: 'FROM', value: (row) => row.from_version ?? '' },
            { header: 'TO', value: (row) => row.to_version },
            { header: 'STATE', value: (row) => row.state },
            { header: 'ERROR', value: (row) => row.error ?? '' },
            { header: 'ASKED', value: (row) => row.created_at },
            { header: 'ID', value: (row) => row.id },
          ],
          'no upgrades',
        );
      },
    );
}
