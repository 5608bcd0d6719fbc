/**
 * `careen nmp watch <name>`: the rollout of a management policy, live. On a terminal the screen
 * is redrawn in place; elsewhere a snapshot is appended whenever it changes. Exits 0 once every
 * node is done, 1 when the policy is disabled (it stopped on failures, or an admin stopped it),
 * 130 when interrupted. A paused rollout is watched on.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../cli-errors';
import { type ExchangeClient, path } from '../http/exchange-client';
import { renderRollout } from '../watch/rollout-screen';
import {
  buildRolloutView,
  EtaEstimator,
  type RolloutView,
  type WatchedNode,
  type WatchedPolicy,
  type WatchedStatus,
} from '../watch/rollout-view';
import { interruptiblePause } from '../watch/interruptible-pause';
import { type CliServices, orgCommandContext } from './command-context';

const CLEAR_SCREEN = '\u001b[H\u001b[2J';

function interval(value: string): number {
  const seconds = Number(value);
  if (!(seconds >= 0.5 && seconds <= 3600)) throw new InvalidArgumentError('seconds between 0.5 and 3600');
  return seconds;
}

async function readRollout(client: ExchangeClient, org: string, name: string): Promise<RolloutView> {
  const base = path`/v1/orgs/${org}/management-policies/${name}`;
  const [policy, appliesTo, nodes] = await Promise.all([
    client.get<WatchedPolicy>(base),
    client.get<{ items: string[] }>(`${base}/nodes`),
    client.get<{ items: WatchedNode[] }>(path`/v1/orgs/${org}/nodes`),
  ]);
  const statuses: WatchedStatus[] = [];
  for (let after: string | null = null; ;) {
    const query: string = after ? `?after=${encodeURIComponent(after)}` : '';
    const page: { items: WatchedStatus[]; next: string | null } = await client.get(
      `${base}/statuses${query}`,
    );
    statuses.push(...page.items);
    if (!page.next) break;
    after = page.next;
  }
  return buildRolloutView(policy, appliesTo.items, statuses, nodes.items);
}

export function registerNmpWatchCommand(
  nmp: Command,
  services: CliServices,
  orgOption: readonly [string, string],
): void {
  nmp
    .command('watch')
    .description(
      "follow a policy's rollout live, per HA group and node; exits 0 when done, 1 when the policy stops",
    )
    .argument('<name>', 'policy name')
    .option('--interval <seconds>', 'how often to look again', interval, 2)
    .option(...orgOption)
    .action(async (name: string, options: { interval: number; org?: string }, command: Command) => {
      const { context, client, org } = await orgCommandContext(command, services, options.org);
      const { stdout, stderr } = context.io;
      const interrupted = new AbortController();
      const stopListening = context.io.onInterrupt?.(() => interrupted.abort());
      const eta = new EtaEstimator();
      let shown = '';
      // The policy is read beside the statuses, so a stop that came with the last status shows
      // only on a read that starts after it: the end is confirmed by one more look.
      let confirming = false;
      try {
        for (;;) {
          const view = await readRollout(client, org, name);
          const now = services.now();
          eta.observe(now, view.final);
          const screen = renderRollout(view, now, eta.secondsLeft(view.total - view.final));
          if (context.printer.format === 'json') {
            if ((view.done && confirming) || view.policy.state === 'disabled')
              stdout.write(`${JSON.stringify(view, null, 2)}\n`);
          } else if (stdout.isTTY) stdout.write(`${CLEAR_SCREEN}${screen}`);
          else if (screen !== shown) stdout.write(`${shown ? '\n' : ''}${screen}`);
          shown = screen;
          if (view.policy.state === 'disabled') {
            throw new CliError(
              `management policy "${org}/${name}" stopped: ${view.policy.disabledReason ?? 'an admin disabled it'}`,
              [
                `${view.total - view.final} of ${view.total} nodes not done; "careen nmp resume ${name}" goes on`,
              ],
            );
          }
          if (view.done) {
            if (confirming) return;
            confirming = true;
            continue;
          }
          confirming = false;
          await interruptiblePause(options.interval * 1000, interrupted.signal);
          if (interrupted.signal.aborted) {
            stderr.write('stopped watching\n');
            throw new CliError('interrupted', [], 130);
          }
        }
      } finally {
        stopListening?.();
      }
    });
}
