/**
 * Signing in: the exchange's token endpoint trades a user's credentials for an access token,
 * which every service accepts as a bearer token, and a refresh token that renews it;
 * `/v1/whoami` then says who that is.
 */
import type { Identity } from './identity';
import { ApiProblem, isRecord, problemFrom } from './problem';
import { isTokenAnswer, TokenSession } from './token-session';

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
  return identityOf(body, now);
}

/** The person a token answer of the exchange signs in: the session it starts, and who the exchange says that is. */
export async function identityOf(body: unknown, now: number): Promise<Identity> {
  if (!isTokenAnswer(body)) throw new ApiProblem(502, 'The exchange gave no access token.', 'BAD_GATEWAY');
  const session = new TokenSession(body, now);
  const who = await fetch('/exchange/v1/whoami', {
    headers: { authorization: session.authorization },
  }).catch(unreachable);
  const whoBody: unknown = await who.json().catch(() => undefined);
  if (!who.ok) throw problemFrom(who.status, whoBody, 'exchange');
  if (!isRecord(whoBody) || whoBody.kind !== 'user')
    throw new ApiProblem(403, 'Only users sign in to the console, not nodes.', 'FORBIDDEN');
  return {
    session,
    org: String(whoBody.org),
    username: String(whoBody.username),
    role: whoBody.role as Identity['role'],
  };
}

export function unreachable(error: unknown): never {
  throw new ApiProblem(0, `The exchange cannot be reached (${(error as Error).message}).`, 'UNREACHABLE');
}
