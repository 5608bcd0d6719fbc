/**
 * Whose a project is: a project is named by deployment policies, and its events go out on one
 * subject whatever the org, so an org may subscribe to a project only if no other org's
 * deployment policies name it. Asked of the exchange as the notifier's user (a hub admin).
 */
import { dataOf } from '@careen/api-client';
import { DomainError } from '@careen/contracts';
import { type ExchangeClient } from '@careen/service';

export class ProjectOwners {
  constructor(private readonly exchange: ExchangeClient | undefined) {}

  /** Whether another org than `org` names `project` in its deployment policies. */
  async ofAnotherOrg(org: string, project: string): Promise<boolean> {
    if (!this.exchange)
      throw new DomainError(
        'unavailable',
        'notifier.projects-unchecked',
        'project subscriptions need the exchange to say whose the project is; set CAREEN_NOTIFIER_EXCHANGE_PASSWORD',
      );
    const exchange = this.exchange;
    const others = (await exchange.listOrgs()).filter((each) => each !== org);
    for (const other of others) {
      const policies = await dataOf(
        exchange.api.GET('/v1/orgs/{org}/deployment-policies', { params: { path: { org: other } } }),
      );
      if (policies.items.some((policy) => policy.project === project)) return true;
    }
    return false;
  }
}
