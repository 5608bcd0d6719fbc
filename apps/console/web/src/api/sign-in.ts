/**
 * Signing in: the exchange's token endpoint trades a user's credentials for an access token,
 * which every service accepts as a bearer token; `/v1/whoami` then says who that is.
 */
import type { Identity } from './identity';
import { ApiProblem, isRecord, problemFrom } from './problem';

export interface Credentials {
  org: string;
  username: string;
  password: string;
}

export async function signIn(credentials: Credentials, now = Date.now()): Promise<Identity> {
  const answer = await fetch('/exchange/v1/auth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  }).catch(unreachable);
  const body: unknown = await answer.json().catch(() => undefined);
  if (answer.status === 401)
    throw new ApiProblem(401, 'The org, user name or password is wrong.', 'UNAUTHENTICATED');
  if (!answer.ok) throw problemFrom(answer.status, body, 'exchange');
  if (!isRecord(body) || typeof body.accessToken !== 'string' || typeof body.expiresIn !== 'number')
    throw new ApiProblem(502, 'The exchange gave no access token.', 'BAD_GATEWAY');
  const accessToken = body.accessToken;
  const who = await fetch('/exchange/v1/whoami', {
    headers: { authorization: `Bearer ${accessToken}` },
  }).catch(unreachable);
  const whoBody: unknown = await who.json().catch(() => undefined);
  if (!who.ok) throw problemFrom(who.status, whoBody, 'exchange');
  if (!isRecord(whoBody) || whoBody.kind !== 'user')
    throw new ApiProblem(403, 'Only users sign in to the console, not nodes.', 'FORBIDDEN');
  return {
    accessToken,
    expiresAt: now + body.expiresIn * 1000,
    org: String(whoBody.org),
    username: String(whoBody.username),
    role: whoBody.role as Identity['role'],
  };
}

function unreachable(error: unknown): never {
  throw new ApiProblem(0, `The exchange cannot be reached (${(error as Error).message}).`, 'UNREACHABLE');
}
