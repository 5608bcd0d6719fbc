/**
 * Wakes the driver when an agent answers a phase of a rollout or an upgrade (a status that ends
 * it: downloaded, successful, rolled-back, …), rather than at its next tick: a plain NATS
 * subscription to the exchange's management-status changes, nothing durable. The steps on the
 * way (downloading, initiated, …) wake nothing: each wake costs a read of the statuses at the
 * exchange. It is a hint only — the driver reads the statuses from the exchange — so a message
 * missed or unreadable costs no more than a tick.
 */
import { type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { ANSWERS } from '../rollouts/phase-outcome';
import { ROLLOUT_POLICY_PREFIX } from '../rollouts/rollout-record';
import { UPGRADE_POLICY_PREFIX } from '../upgrades/upgrade-states';

/** `careen.changes.<org>.managementStatus.<node>`, as the exchange publishes a node's status. */
const SUBJECT = 'careen.changes.*.managementStatus.*';

export function wakeOnAnswers(nc: NatsConnection, wake: () => void): Subscription {
  return nc.subscribe(SUBJECT, {
    callback: (error, message) => {
      if (error) return;
      try {
        const { nmp, status } = message.json<{ data?: { nmp?: unknown; status?: unknown } }>().data ?? {};
        if (typeof nmp !== 'string' || typeof status !== 'string' || !ANSWERS.includes(status)) return;
        if (nmp.startsWith(ROLLOUT_POLICY_PREFIX) || nmp.startsWith(UPGRADE_POLICY_PREFIX)) wake();
      } catch {
        // Not readable as a change: the exchange's own consumers dead-letter it; a hint the less.
      }
    },
  });
}
