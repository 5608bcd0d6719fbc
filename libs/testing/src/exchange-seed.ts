/**
 * Orgs, users and nodes put into a running exchange through its API, the way each test of it
 * begins. Seeded accounts have known secrets: a user's password is `<username>-password`, a
 * node's token `<id>-token-0123456789`.
 */
import { basic, http, type Credentials } from './http-client';

/** The root password test exchanges start with (`CAREEN_ROOT_PASSWORD`), and root's credentials. */
export const ROOT_PASSWORD = 'root-password-1';
export const seededRoot: Credentials = basic('root', 'root', ROOT_PASSWORD);

export type SeededRole = 'orgAdmin' | 'operator' | 'viewer';

export interface OrgSeed {
  /** Users by username, created by root in the order given. */
  users?: Record<string, SeededRole>;
  /** Nodes registered with their known token, by the org's first admin listed (root if none). */
  nodes?: readonly string[];
}

const passwordOf = (username: string) => `${username}-password`;
const tokenOf = (node: string) => `${node}-token-0123456789`;

export const seededUser = (org: string, username: string): Credentials =>
  basic(org, username, passwordOf(username));

export const seededNode = (org: string, id: string): Credentials => basic(org, id, tokenOf(id));

/** Creates each org with its users and nodes; throws naming the first request the exchange refused. */
export async function seedExchange(
  exchangeUrl: string,
  orgs: Record<string, OrgSeed>,
  root: Credentials = seededRoot,
): Promise<void> {
  const send = async (auth: Credentials, method: string, path: string, body: unknown) => {
    const answer = await http(exchangeUrl, method, path, { auth, body });
    if (answer.status >= 300)
      throw new Error(`seeding: ${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  };
  for (const [org, { users = {}, nodes = [] }] of Object.entries(orgs)) {
    await send(root, 'POST', '/v1/orgs', { id: org });
    for (const [username, role] of Object.entries(users))
      await send(root, 'POST', `/v1/orgs/${org}/users`, { username, password: passwordOf(username), role });
    const admin = Object.entries(users).find(([, role]) => role === 'orgAdmin')?.[0];
    const registrar = admin ? seededUser(org, admin) : root;
    for (const id of nodes)
      await send(registrar, 'PUT', `/v1/orgs/${org}/nodes/${id}`, { token: tokenOf(id) });
  }
}
