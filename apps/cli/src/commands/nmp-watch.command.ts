/**
 * `careen nmp watch <name>`: the rollout of a management policy, live. On a terminal the screen
 * is redrawn in place; elsewhere each change is appended as a line. Exits 0 once every node is
 * done, 1 when the policy is disabled (it stopped on failures, or an admin stopped it), 3 when
 * nothing can move until an operator resets a node that halts its HA group, 130 when
 * interrupted. A paused rollout is watched on.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../cli-errors';
import { rolloutChangeLines } from '../watch/change-lines';
import { groupsWaitingForAnOperator, waitsForPackage } from '../watch/rollout-halt';
import { renderRollout } from '../watch/rollout-screen';
import { buildRolloutView, EtaEstimator, type RolloutView, type WatchedStatus } from '../watch/rollout-view';
import { EXIT_NEEDS_OPERATOR, watchLive } from '../watch/watch-live';
import { type CliServices, type ExchangeCall, orgCommandContext } from './command-context';

function interval(value: string): number {
  const seconds = Number(value);
  if (!(seconds >= 0.5 && seconds <= 3600)) throw new InvalidArgumentError('seconds between 0.5 and 3600');
  return seconds;
}

async function readRollout(exchange: ExchangeCall, org: string, name: string): Promise<RolloutView> {
  const policyPath = { path: { org, name } };
  const [appliesTo, nodes, rollup] = await Promise.all([
    exchange((api) => api.GET('/v1/orgs/{org}/management-policies/{name}/nodes', { params: policyPath })),
    exchange((api) => api.GET('/v1/orgs/{org}/nodes', { params: { path: { org } } })),
    exchange((api) => api.GET('/v1/orgs/{org}/management-policies/{name}/status', { params: policyPath })),
  ]);
  const statuses: WatchedStatus[] = [];
  for (let after: string | undefined; ;) {
    const page = await exchange((api) =>
      api.GET('/v1/orgs/{org}/management-policies/{name}/statuses', {
        params: { ...policyPath, query: { after } },
      }),
    );
    statuses.push(...page.items);
    if (!page.next) break;
    after = page.next;
  }
  // Read after the statuses: the status that reaches failureThreshold disables the policy in the
  // same transaction, so a stop that came with the last status read is seen here.
  const policy = await exchange((api) =>
    api.GET('/v1/orgs/{org}/management-policies/{name}', { params: policyPath }),
  );
  return buildRolloutView(policy, appliesTo.items, statuses, nodes.items, rollup);
}

export function registerNmpWatchCommand(
  nmp: Command,
  services: CliServices,
  orgOption: readonly [string, string],
): void {
  nmp
    .command('watch')
    .description(
      "follow a policy's rollout live, per HA group and node; exits 0 when done, 1 when the policy stops, 3 when a halted HA group waits for an operator",
    )
    .argument('<name>', 'policy name')
    .option('--interval <seconds>', 'how often to look again', interval, 2)
    .option(...orgOption)
    .action(async (name: string, options: { interval: number; org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const eta = new EtaEstimator();
      await watchLive(context.io, context.printer.format, options.interval, async () => {
        const view = await readRollout(exchange, org, name);
        const now = services.now();
        eta.observe(now, view.final);
        const stopped =
          view.policy.state === 'disabled' &&
          new CliError(
            `management policy "${org}/${name}" stopped: ${view.policy.disabledReason ?? 'an admin disabled it'}`,
            [
              `${view.total - view.final} of ${view.total} nodes not done; "careen nmp resume ${name}" goes on`,
            ],
          );
        return {
          screen: renderRollout(view, now, eta.secondsLeft(view.total - view.final)),
          lines: rolloutChangeLines(view),
          value: view,
          outcome: stopped || waitsForAnOperator(org, name, view) || (view.done ? 'done' : 'running'),
        };
      });
    });
}

/**
 * What ends the watch for an operator, with the command that goes on: a halt, or nodes that wait
 * for a package no one published; false while anything can move.
 */
function waitsForAnOperator(org: string, name: string, view: RolloutView): CliError | false {
  if (waitsForPackage(view))
    return new CliError(
      `management policy "${org}/${name}" waits for an operator: ${view.missingPackage ?? ''}`,
      [
        `publish the package (careen agentpackage publish), or point the policy at a published version (careen nmp publish ${name})`,
      ],
      EXIT_NEEDS_OPERATOR,
    );
  const halted = groupsWaitingForAnOperator(view);
  if (halted.length === 0) return false;
  return new CliError(
    `management policy "${org}/${name}" waits for an operator: ${view.total - view.final} of ${view.total} nodes not done, held by a halted HA group`,
    halted.map(
      ({ name: group, halted: member }) =>
        `HA group ${group} waits for ${member.node} (${member.status}${member.error ? `: ${member.error}` : ''}); ` +
        `once the node is repaired, "careen nmp reset ${name} --node ${member.node}" lets the group go on`,
    ),
    EXIT_NEEDS_OPERATOR,
  );
}
