/**
 * `careen rollout start|list|show|watch|pause|resume|cancel`: a deployment strategy rolled
 * through the fleet to an agent version, group by group.
 */
import { type Command } from 'commander';
import { CliError } from '../cli-errors';
import { strategyRolloutChangeLines } from '../watch/change-lines';
import { FINISHED_ROLLOUT_STATES, renderStrategyRollout } from '../watch/strategy-rollout-screen';
import { watchLive } from '../watch/watch-live';
import { type CliServices } from './command-context';
import { ORCHESTRATOR_URL_OPTION, orchestratorContext } from './orchestrator-service';
import { positiveWhole } from './strategy.commands';

interface StartOptions {
  agentVersion: string;
  strategyVersion?: number;
  phaseTimeout?: number;
  allowDowngrade?: boolean;
  org?: string;
}

export function registerRolloutCommands(program: Command, services: CliServices): void {
  const rollout = program
    .command('rollout')
    .description("strategy rollouts: a strategy's groups taken to an agent version in dependency order")
    .option(...ORCHESTRATOR_URL_OPTION);

  rollout
    .command('start')
    .description('start rolling a strategy to an agent version; prints the rollout')
    .argument('<strategy>', 'strategy name')
    .requiredOption('--agent-version <version>', 'the agent version to take the nodes to')
    .option('--strategy-version <n>', 'this version of the strategy (default: the newest)', positiveWhole)
    .option('--phase-timeout <seconds>', "seconds a group's phase may take (default 3600)", positiveWhole)
    .option(
      '--allow-downgrade',
      'take nodes running a higher version down to this one (refused without it, naming them)',
    )
    .option('--org <org>', 'org (hub admins; default: your own)')
    .action(async (strategy: string, options: StartOptions, command: Command) => {
      const { context, ask } = await orchestratorContext(command, services);
      const started = await ask((api) =>
        api.POST('/v1/rollouts', {
          body: {
            strategy,
            version: options.agentVersion,
            ...(options.strategyVersion !== undefined && { strategy_version: options.strategyVersion }),
            ...(options.phaseTimeout !== undefined && { phase_timeout_seconds: options.phaseTimeout }),
            ...(options.allowDowngrade === true && { allow_downgrade: true }),
            ...(options.org !== undefined && { org: options.org }),
          },
        }),
      );
      context.printer.result(
        started,
        `started rollout ${started.id} of ${started.strategy} v${started.strategy_version} to ${started.version} over ${started.counts.nodes} node(s)` +
          (started.allow_downgrade ? ', taking any above it down' : '') +
          started.warnings.map((line) => `\nwarning: ${line}`).join(''),
      );
    });

  rollout
    .command('list')
    .description("the org's rollouts, newest first")
    .option('--org <org>', 'org (hub admins; default: your own)')
    .option('--limit <n>', 'at most this many (default 50)', positiveWhole)
    .action(async (options: { org?: string; limit?: number }, command: Command) => {
      const { context, ask } = await orchestratorContext(command, services);
      const answer = await ask((api) =>
        api.GET('/v1/rollouts', { params: { query: { org: options.org, limit: options.limit } } }),
      );
      context.printer.list(
        answer,
        [
          { header: 'ROLLOUT', value: (row) => row.id },
          { header: 'STRATEGY', value: (row) => `${row.strategy} v${row.strategy_version}` },
          { header: 'VERSION', value: (row) => row.version },
          { header: 'STATE', value: (row) => row.state },
          { header: 'NODES', value: (row) => `${row.counts.success}/${row.counts.nodes}` },
          { header: 'STARTED', value: (row) => row.created_at },
        ],
        'no rollouts',
      );
    });

  rollout
    .command('show')
    .description('a rollout: every group with its progress, phase and reason, and the nodes that failed')
    .argument('<rollout>', 'rollout id')
    .action(async (id: string, _options: object, command: Command) => {
      const { context, ask } = await orchestratorContext(command, services);
      const answer = await ask((api) => api.GET('/v1/rollouts/{id}', { params: { path: { id } } }));
      if (context.printer.format === 'json') context.printer.record(answer);
      else context.io.stdout.write(renderStrategyRollout(answer, services.now()));
    });

  rollout
    .command('watch')
    .description('follow a rollout live; exits 0 when it completes, 1 when it fails or is cancelled')
    .argument('<rollout>', 'rollout id')
    .option(
      '--interval <seconds>',
      'how often to look again',
      (value) => Math.max(0.2, Number(value) || 2),
      2,
    )
    .action(async (id: string, options: { interval: number }, command: Command) => {
      const { context, ask } = await orchestratorContext(command, services);
      await watchLive(context.io, context.printer.format, options.interval, async () => {
        const answer = await ask((api) => api.GET('/v1/rollouts/{id}', { params: { path: { id } } }));
        const stopped =
          ['failed', 'cancelled'].includes(answer.state) &&
          new CliError(`rollout ${id} ${answer.state}${answer.reason ? `: ${answer.reason}` : ''}`);
        return {
          screen: renderStrategyRollout(answer, services.now()),
          lines: strategyRolloutChangeLines(answer),
          value: answer,
          outcome: stopped || (FINISHED_ROLLOUT_STATES.includes(answer.state) ? 'done' : 'running'),
        };
      });
    });

  for (const [name, description, route] of [
    [
      'pause',
      'pause a rollout: nothing more is sent; nodes of the phase under way that have not started wait',
      '/v1/rollouts/{id}/pause',
    ],
    ['resume', 'resume a paused rollout', '/v1/rollouts/{id}/resume'],
    [
      'cancel',
      'cancel a rollout: nothing more is sent, nodes under way finish, no policy is left behind',
      '/v1/rollouts/{id}/cancel',
    ],
  ] as const) {
    rollout
      .command(name)
      .description(description)
      .argument('<rollout>', 'rollout id')
      .action(async (id: string, _options: object, command: Command) => {
        const { context, ask } = await orchestratorContext(command, services);
        const answer = await ask((api) => api.POST(route, { params: { path: { id } } }));
        context.printer.result(answer, `rollout ${id} is ${answer.state}`);
      });
  }
}
