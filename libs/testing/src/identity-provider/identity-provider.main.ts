/**
 * A real OpenID provider (oidc-provider, the certified implementation) for tests, run as a
 * process of its own: authorization code with PKCE, the device authorization grant, refresh
 * tokens, and a `groups` claim read from a directory the test edits over HTTP
 * (`PUT /test/accounts/{id}` with `{groups}`, `DELETE /test/accounts/{id}`). Its sign-in page
 * asks only for an account name; consent is given at once. Settings come from the environment:
 * IDP_PORT, and IDP_CLIENTS, a JSON list of client metadata.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as oidc from 'oidc-provider';
import { type ClientMetadata } from 'oidc-provider';

const port = Number(process.env.IDP_PORT);
const issuer = `http://127.0.0.1:${port}`;
const clients = JSON.parse(process.env.IDP_CLIENTS ?? '[]') as ClientMetadata[];
/** Account name → its groups: who may sign in, and as what. */
const directory = new Map<string, string[]>();

const provider = new oidc.default(issuer, {
  clients,
  cookies: { keys: ['careen-test-identity-provider'] },
  scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
  claims: {
    openid: ['sub'],
    profile: ['preferred_username', 'name'],
    email: ['email'],
    groups: ['groups'],
  },
  // Claims in the ID token itself, where relying parties read groups from.
  conformIdTokenClaims: false,
  features: {
    devInteractions: { enabled: false },
    deviceFlow: { enabled: true },
    revocation: { enabled: true },
  },
  // A refresh token to every client allowed one, as most enterprise providers do.
  issueRefreshToken: (_ctx, client) => Promise.resolve(client.grantTypeAllowed('refresh_token')),
  ttl: {
    AccessToken: 600,
    IdToken: 600,
    RefreshToken: 86_400,
    DeviceCode: 600,
    Interaction: 600,
    Session: 86_400,
    Grant: 86_400,
  },
  findAccount: (_ctx, id) => {
    const groups = directory.get(id);
    if (!groups) return undefined;
    return {
      accountId: id,
      claims: () => ({ sub: id, preferred_username: id, name: id, email: `${id}@example.test`, groups }),
    };
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

function signInPage(uid: string, message: string): string {
  return `<!DOCTYPE html><html><head><title>Test identity provider</title></head><body>
<h1>Sign in</h1><p id="message">${message}</p>
<form method="post" action="/interaction/${uid}/login">
<label>Account <input name="login" autofocus></label>
<button type="submit">Sign in</button>
</form></body></html>`;
}

/** The sign-in page, and consent given at once to whatever the client asked. */
async function interaction(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  const uid = details.uid;
  if (request.method === 'POST' && path.endsWith('/login')) {
    const login = new URLSearchParams(await bodyOf(request)).get('login') ?? '';
    if (!directory.has(login)) {
      response.writeHead(200, { 'content-type': 'text/html' }).end(signInPage(uid, `no account "${login}"`));
      return;
    }
    await provider.interactionFinished(request, response, { login: { accountId: login } });
    return;
  }
  if (details.prompt.name === 'consent') {
    const grant = details.grantId
      ? ((await provider.Grant.find(details.grantId)) ?? newGrant(details))
      : newGrant(details);
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(
      request,
      response,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'text/html' }).end(signInPage(uid, 'who are you?'));
}

function newGrant(details: Awaited<ReturnType<typeof provider.interactionDetails>>) {
  return new provider.Grant({
    accountId: details.session!.accountId,
    clientId: String(details.params.client_id),
  });
}

/** The test's hand on the directory. */
async function directoryRoute(request: IncomingMessage, response: ServerResponse, id: string): Promise<void> {
  if (request.method === 'DELETE') directory.delete(id);
  else {
    const { groups } = JSON.parse((await bodyOf(request)) || '{}') as { groups?: unknown };
    if (!Array.isArray(groups) || !groups.every((group) => typeof group === 'string')) {
      response.writeHead(400).end('groups: a list of strings');
      return;
    }
    directory.set(id, groups);
  }
  response.writeHead(204).end();
}

const callback = provider.callback();
createServer((request, response) => {
  const path = new URL(request.url ?? '/', issuer).pathname;
  const answered = path.startsWith('/test/accounts/')
    ? directoryRoute(request, response, decodeURIComponent(path.slice('/test/accounts/'.length)))
    : path.startsWith('/interaction/')
      ? interaction(request, response, path)
      : undefined;
  if (!answered) {
    void callback(request, response);
    return;
  }
  answered.catch((error: unknown) => {
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
    response.end(String(error));
  });
}).listen(port, '127.0.0.1', () => process.stdout.write(`listening on ${issuer}\n`));
