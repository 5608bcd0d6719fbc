/**
 * Signing in through the org's identity provider: authorization code with PKCE (RFC 7636). The
 * console makes the code verifier, state and nonce, keeps them in this tab's session storage,
 * and sends the browser to the provider with the authorization URL the exchange builds for the
 * verifier's challenge. The provider sends the browser back to the console with a code, which
 * the exchange redeems with the verifier for a Careen login. Nothing but the pending sign-in
 * is stored, and only until the browser is back.
 */
import type { Identity } from './identity';
import { ApiProblem } from './problem';
import { identityOf, postToExchange } from './sign-in';

const PENDING = 'careen.sso.pending';

interface PendingSignIn {
  org: string;
  verifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const random = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Sends the browser to the org's provider; the console is loaded again when it comes back. */
export async function startSsoSignIn(org: string): Promise<void> {
  if (!org) throw new ApiProblem(400, 'Give the org to sign in to.', 'INVALID_REQUEST');
  if (!crypto.subtle) {
    throw new ApiProblem(0, 'Single sign-on needs the console served over https.', 'INSECURE_CONTEXT');
  }
  const verifier = random();
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  const pending: PendingSignIn = {
    org,
    verifier,
    state: random(),
    nonce: random(),
    redirectUri: `${window.location.origin}${window.location.pathname}`,
  };
  const answer = (await postToExchange(`/v1/auth/sso/${encodeURIComponent(org)}/authorize`, {
    redirectUri: pending.redirectUri,
    codeChallenge: challenge,
    state: pending.state,
    nonce: pending.nonce,
  })) as { authorizationUrl: string };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  window.location.assign(answer.authorizationUrl);
}

/** The org of a sign-in started here whose browser has just come back from the provider to finish it. */
export function ssoCallbackOrg(): string | undefined {
  const query = new URLSearchParams(window.location.search);
  if (!query.has('code') && !query.has('error')) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as PendingSignIn | null;
  return pending?.org;
}

/** Redeems the provider's code for a Careen login; the code leaves the address bar either way. */
export async function finishSsoSignIn(now = Date.now()): Promise<Identity> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as PendingSignIn | null;
  sessionStorage.removeItem(PENDING);
  const callbackUrl = `${window.location.origin}${window.location.pathname}${window.location.search}`;
  const query = new URLSearchParams(window.location.search);
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.hash}`);
  if (!pending)
    throw new ApiProblem(400, 'No single sign-on was started here: start it again.', 'INVALID_REQUEST');
  const error = query.get('error');
  if (error) {
    throw new ApiProblem(
      401,
      `The identity provider refused: ${query.get('error_description') ?? error}.`,
      error,
    );
  }
  const body = await postToExchange(`/v1/auth/sso/${encodeURIComponent(pending.org)}/token`, {
    callbackUrl,
    codeVerifier: pending.verifier,
    state: pending.state,
    nonce: pending.nonce,
  });
  return identityOf(body, now);
}
