/**
 * What the orchestrator reads from the agbot, as its service user: the soaks of an org's alert
 * gates (GET …/soaks), so that a node's step counts as done only once its soak is over, and as
 * failed when an alert fired during it.
 */
import { type Agbot, dataOf, type ServiceClient } from '@careen/api-client';
import { agbotUnavailable } from '../orchestrator.errors';

export type SoakState = Agbot.components['schemas']['SoakStateResponse'];

export class SoakGateway {
  constructor(private readonly agbot: ServiceClient<Agbot.paths>) {}

  /** The soak state of each node a soaking gate covers whose step is under way, soaking or failed. */
  async of(org: string): Promise<ReadonlyMap<string, SoakState>> {
    try {
      const { items } = await dataOf(this.agbot.GET('/v1/orgs/{org}/soaks', { params: { path: { org } } }));
      return new Map(items.map((item) => [item.node, item]));
    } catch (error) {
      throw agbotUnavailable(`the agbot did not say which steps soak: ${(error as Error).message}`);
    }
  }
}
