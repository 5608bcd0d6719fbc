/**
 * What the orchestrator reads from the agbot, as its service user: the soaks of an org's alert
 * gates (GET …/soaks), so that a node's step counts as done only once its soak is over, and as
 * failed when an alert fired during it. Rollouts and single-node upgrades read statuses through
 * it alike.
 */
import { type Agbot, dataOf, type ServiceClient } from '@careen/api-client';
import { agbotUnavailable } from '../orchestrator.errors';
import { type PolicyStatus } from './fleet-gateway';

export type SoakState = Agbot.components['schemas']['SoakStateResponse'];

/** A node whose step ended, shown so while an alert gate's soak of it lasts (or it holds its slot). */
export const SOAKING = 'soaking';
/** A node whose step an alert failed during the soak that followed it. */
export const SOAK_FAILED = 'soak-failed';

export class SoakGateway {
  constructor(private readonly agbot: ServiceClient<Agbot.paths>) {}

  /**
   * The statuses as the org's soaks leave them (see `withSoaks`); the agbot is asked only when a
   * node reported `successful`.
   */
  async settle(org: string, statuses: readonly PolicyStatus[]): Promise<PolicyStatus[]> {
    if (!statuses.some((reported) => reported.status === 'successful')) return [...statuses];
    return withSoaks(statuses, await this.of(org));
  }

  /** The soak state of each node a soaking gate covers whose step is under way, soaking or failed. */
  private async of(org: string): Promise<ReadonlyMap<string, SoakState>> {
    try {
      const { items } = await dataOf(this.agbot.GET('/v1/orgs/{org}/soaks', { params: { path: { org } } }));
      return new Map(items.map((item) => [item.node, item]));
    } catch (error) {
      throw agbotUnavailable(`the agbot did not say which steps soak: ${(error as Error).message}`);
    }
  }
}

/**
 * The statuses as the agbot's soaks (GET …/soaks) leave them: a node that reported `successful`
 * is still `soaking` while it holds its slot or its soak lasts (`halted` while it halts its
 * group), and `soak-failed` when an alert fired during its soak; the others are as reported.
 */
export function withSoaks(
  statuses: readonly PolicyStatus[],
  soaks: ReadonlyMap<string, SoakState>,
): PolicyStatus[] {
  return statuses.map((reported) => {
    const soak = reported.status === 'successful' ? soaks.get(reported.node) : undefined;
    if (!soak) return reported;
    if (soak.state === 'soak-failed') return { ...reported, status: SOAK_FAILED, error: soak.error ?? null };
    if (soak.state === 'soaking')
      return {
        ...reported,
        status: SOAKING,
        error: `gate "${soak.gate}" soaks the step until ${soak.until}`,
      };
    return { ...reported, status: soak.state === 'halted' ? 'halted' : SOAKING, error: null };
  });
}
