/**
 * Carries out a step's commands against the platform, each one idempotent so that a replica
 * taking over after a crash may give it again: the HA-group slot at the agbot's semaphore
 * (asking again renews), the cordon at the exchange (`schedulable`; a host found cordoned
 * already is left cordoned after — found once, and kept before the cordon is made, so that an
 * attempt after one whose end was lost does not take the session's own cordon for an
 * operator's), the host action started once. A command the platform refuses for now (the group's slot is held) stays pending.
 */
import { type Agbot, ApiError, dataOf, type ServiceClient } from '@careen/api-client';
import { type ExchangeClient } from '@careen/service';
import { type WorkflowInput } from '../workflow/workflow.types';
import { type PendingCommand, type SessionRecord } from '../sessions/session-record';
import { type SessionStore } from '../sessions/session-store';
import { type SlotHolderView } from '../sessions/session-view';

/** The holder in the agbot's 409 for a busy HA group (`details.holder`). */
interface AgbotSlotHolder {
  node: string;
  kind: string;
  managementPolicy?: string | null;
  grantedAt: string;
  leaseExpiresAt?: string | null;
  halted?: boolean;
}

export type CommandOutcome =
  | { done: true; input?: WorkflowInput; result?: Record<string, unknown> }
  | { done: false; why: string; found?: { holder?: SlotHolderView } };

export interface CommandRunnerSettings {
  agbotUrl: string;
  slotLeaseSeconds: number;
}

export class CommandRunner {
  private readonly agbot: ServiceClient<Agbot.paths>;

  constructor(
    private readonly exchange: ExchangeClient,
    private readonly store: SessionStore,
    private readonly settings: CommandRunnerSettings,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.agbot = exchange.service<Agbot.paths>(settings.agbotUrl);
  }

  async run(record: SessionRecord, pending: PendingCommand): Promise<CommandOutcome> {
    const { command } = pending;
    const node = { params: { path: { org: record.org, id: command.host } } };
    try {
      switch (command.kind) {
        case 'take-slot':
          await this.takeSlot(record.org, command.host);
          return { done: true, input: { kind: 'slot-granted', host: command.host } };
        case 'release-slot':
          await dataOf(
            this.agbot.DELETE('/v1/orgs/{org}/nodes/{node}/maintenance-slot', {
              params: { path: { org: record.org, node: command.host } },
            }),
          );
          return { done: true };
        case 'cordon': {
          // A host an operator had cordoned already stays cordoned after the session.
          let found = pending.result as { alreadyCordoned: boolean } | null;
          if (!found) {
            const { schedulable } = await dataOf(this.exchange.api.GET('/v1/orgs/{org}/nodes/{id}', node));
            found = { alreadyCordoned: !schedulable };
            await this.store.keepFinding(pending.id, found);
          }
          if (!found.alreadyCordoned)
            await dataOf(
              this.exchange.api.PATCH('/v1/orgs/{org}/nodes/{id}', { ...node, body: { schedulable: false } }),
            );
          return { done: true, result: found };
        }
        case 'uncordon':
          if ((await this.store.commandResult(record.id, command.host, 'cordon'))?.alreadyCordoned)
            return { done: true };
          await dataOf(
            this.exchange.api.PATCH('/v1/orgs/{org}/nodes/{id}', { ...node, body: { schedulable: true } }),
          );
          return { done: true };
        case 'start-host-action':
          await this.startHostAction(record, command.host);
          return { done: true };
      }
    } catch (error) {
      if (error instanceof ApiError && error.status === 409 && command.kind === 'take-slot') {
        // A refusal that names no holder clears the one an earlier refusal named.
        const holder = await this.slotHolder(record.org, error);
        return { done: false, why: error.message, found: holder ? { holder } : {} };
      }
      if (error instanceof ApiError && error.status === 409) return { done: false, why: error.message };
      // A node removed from the exchange meanwhile has nothing left to cordon, release or upgrade.
      if (error instanceof ApiError && error.status === 404 && command.kind !== 'take-slot')
        return { done: true };
      throw error;
    }
  }

  /** Who the agbot said holds the slot; for a maintenance slot, the open session that holds its node. */
  private async slotHolder(org: string, refusal: ApiError): Promise<SlotHolderView | undefined> {
    const holder = (refusal.body?.details as { holder?: AgbotSlotHolder } | undefined)?.holder;
    if (!holder || typeof holder.node !== 'string') return undefined;
    return {
      kind: holder.kind,
      node: holder.node,
      management_policy: holder.managementPolicy ?? null,
      session:
        holder.kind === 'maintenance' ? ((await this.store.openSessionOf(org, holder.node)) ?? null) : null,
      since: holder.grantedAt,
      lease_expires_at: holder.leaseExpiresAt ?? null,
      halted: holder.halted === true,
      seen_at: this.clock().toISOString(),
    };
  }

  /** Asks for the host's slot again, which renews its lease. */
  async takeSlot(org: string, host: string): Promise<void> {
    await dataOf(
      this.agbot.POST('/v1/orgs/{org}/nodes/{node}/maintenance-slot', {
        params: { path: { org, node: host } },
        body: { leaseSeconds: this.settings.slotLeaseSeconds },
      }),
    );
  }

  private async startHostAction(record: SessionRecord, host: string): Promise<void> {
    const action = record.hostAction;
    const manager = this.store.manager;
    if (action.kind === 'simulated') {
      await this.store.startHostAction(
        manager,
        record.id,
        host,
        new Date(Date.now() + (action.seconds ?? 0) * 1000),
        {},
      );
      return;
    }
    if (action.kind === 'agent-upgrade') {
      const policy = agentUpgradePolicyName(record.id, host);
      await dataOf(
        this.exchange.api.PUT('/v1/orgs/{org}/management-policies/{name}', {
          params: { path: { org: record.org, name: policy } },
          body: {
            description: `maintenance session ${record.id}: agent of ${host} to ${action.version}`,
            enabled: true,
            nodes: [host],
            agentUpgradePolicy: { atLeastVersion: action.version, start: 'now' },
          },
        }),
      );
      await this.store.startHostAction(manager, record.id, host, null, { managementPolicy: policy });
      return;
    }
    // manual and external: someone else does the work and says when it is done.
    await this.store.startHostAction(manager, record.id, host, null, {});
  }
}

/** The node-targeted management policy that rolls one host's agent in a session. */
export function agentUpgradePolicyName(sessionId: string, host: string): string {
  return `maint-${sessionId.slice(0, 8)}-${host}`.slice(0, 63);
}
