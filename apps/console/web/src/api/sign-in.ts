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
  const body = await postToExchange('/v1/auth/token', credentials).catch((problem: unknown) => {
    if (problem instanceof ApiProblem && problem.status === 401)
      throw new ApiProblem(401, 'The org, user name or password is wrong.', 'UNAUTHENTICATED');
    throw problem;
  });
  return identityOf(body, now);
}

/** A POST of JSON to the exchange without a login (a sign-in's steps): its answer, or its refusal as an ApiProblem. */
export async function postToExchange(path: string, body: unknown): Promise<unknown> {
  const answer = await fetch(`/exchange${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).catch(unreachable);
  const parsed: unknown = await answer.json().catch(() => undefined);
  if (!answer.ok) throw problemFrom(answer.status, parsed, 'exchange');
  return parsed;
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

function unreachable(error: unknown): never {
  throw new ApiProblem(0, `The exchange cannot be reached (${(error as Error).message}).`, 'UNREACHABLE');
}
