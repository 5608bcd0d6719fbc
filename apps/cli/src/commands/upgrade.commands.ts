/** `careen upgrade node|history`: one node's agent upgraded on its own, and the history of such upgrades. */
import { type DeploymentOrchestrator } from '@careen/api-client';
import { type Command } from 'commander';
import { type CliServices } from './command-context';
import { ORCHESTRATOR_URL_OPTION, orchestratorContext } from './orchestrator-service';
import { positiveWhole } from './strategy.commands';

type Upgrade = DeploymentOrchestrator.components['schemas']['UpgradeResponse'];

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
    .option(
      '--allow-downgrade',
      'take the node down to a version below the one it runs (a rollback; refused without it)',
    )
    .option('--org <org>', "the node's org (hub admins; default: your own)")
    .action(
      async (
        node: string,
        // The strategy as typed: the orchestrator refuses any other with 400 naming what it takes.
        options: {
          agentVersion: string;
          strategy: Upgrade['strategy'];
          location?: string;
          allowDowngrade?: boolean;
          org?: string;
        },
        command: Command,
      ) => {
        const { context, ask } = await orchestratorContext(command, services);
        const { agentVersion, ...rest } = options;
        const asked = await ask((api) =>
          api.POST('/v1/upgrades', { body: { node_id: node, version: agentVersion, ...rest } }),
        );
        context.printer.result(
          asked,
          `${asked.rollback ? 'rollback' : 'upgrade'} ${asked.id}: node ${node} from ${asked.from_version ?? 'unknown'} to ${asked.to_version} (${asked.state})`,
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
      async (
        // The state as typed: the orchestrator refuses any other with 400 naming the states.
        options: { node?: string; state?: Upgrade['state']; limit?: number; org?: string },
        command: Command,
      ) => {
        const { context, ask } = await orchestratorContext(command, services);
        const { node, state, limit, org } = options;
        const answer = await ask((api) =>
          api.GET('/v1/upgrades', { params: { query: { node_id: node, state, limit, org } } }),
        );
        context.printer.list(
          answer,
          [
            { header: 'NODE', value: (row) => row.node_id },
            { header: 'FROM', value: (row) => row.from_version ?? '' },
            { header: 'TO', value: (row) => row.to_version },
            { header: 'STATE', value: (row) => (row.rollback ? `${row.state} (rollback)` : row.state) },
            { header: 'ERROR', value: (row) => row.error ?? '' },
            { header: 'ASKED', value: (row) => row.created_at },
            { header: 'ID', value: (row) => row.id },
          ],
          'no upgrades',
        );
      },
    );
}
