/** Every node's status under one management policy, read page by page. */
import { read, type Clients } from './clients';

export async function policyStatuses(clients: Clients, org: string, nmp: string) {
  const statuses = [];
  let after: string | undefined;
  do {
    const page = await read(
      clients.exchange.GET('/v1/orgs/{org}/management-policies/{name}/statuses', {
        params: { path: { org, name: nmp }, query: { limit: 1000, after } },
      }),
      'exchange',
    );
    statuses.push(...page.items);
    after = page.next ?? undefined;
  } while (after);
  return statuses;
}
