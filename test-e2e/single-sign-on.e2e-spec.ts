/**
 * Single sign-on against a real OpenID provider (oidc-provider, run by the harness): an org
 * admin sets the provider and its group → role mapping; people sign in with the device grant
 * (as `careen login --sso` does) and with the authorization code and PKCE (as the console does);
 * their role follows their groups at each renewal, and someone taken out of the groups, or out
 * of the provider, loses access at the next one. Passwords switched off for the org are refused,
 * but for the hub admin root/root; removing the provider allows them again.
 */
import { exchangeService } from '@careen/exchange/src/exchange.service';
import { startServiceInProcess } from '@careen/service';
import {
  bearer,
  eventually,
  http,
  ROOT_PASSWORD,
  seededRoot,
  seededUser,
  seedExchange,
  startTestIdentityProvider,
  useTestInfra,
  type TestIdentityProvider,
} from '@careen/testing';
import { createHash, randomBytes } from 'node:crypto';

const CALLBACK = 'http://127.0.0.1:9/sso/callback';
const random = () => randomBytes(32).toString('base64url');

describe('single sign-on through an OpenID provider', () => {
  const infra = useTestInfra();
  const admin = seededUser('acme', 'ada');
  let idp: TestIdentityProvider;
  let exchange = '';
  let close = async () => {};

  const provider = (overrides: Record<string, unknown> = {}) => ({
    issuer: idp.issuer,
    clientId: 'careen',
    scopes: ['openid', 'profile', 'groups', 'offline_access'],
    roleMappings: [
      { group: 'noc', role: 'viewer' },
      { group: 'ops', role: 'operator' },
    ],
    ...overrides,
  });

  /** A device sign-in as `careen login --sso` makes it, the person approving it at the provider. */
  async function deviceSignIn(account: string) {
    const started = await http(exchange, 'POST', '/v1/auth/sso/acme/device');
    expect(started.status).toBe(200);
    const pending = await http(exchange, 'POST', '/v1/auth/sso/acme/device/token', {
      body: { deviceCode: started.body.deviceCode },
    });
    expect(pending.status).toBe(400);
    expect(pending.body.details.code).toBe('AUTHORIZATION_PENDING');
    await idp.signIn(started.body.verificationUriComplete, account);
    return http(exchange, 'POST', '/v1/auth/sso/acme/device/token', {
      body: { deviceCode: started.body.deviceCode },
    });
  }

  /** A browser sign-in as the console makes it, without the browser. */
  async function codeSignIn(account: string) {
    const verifier = random();
    const [state, nonce] = [random(), random()];
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = await http(exchange, 'POST', '/v1/auth/sso/acme/authorize', {
      body: { redirectUri: CALLBACK, codeChallenge: challenge, state, nonce },
    });
    expect(authorize.status).toBe(200);
    const callbackUrl = await idp.signIn(authorize.body.authorizationUrl, account);
    expect(callbackUrl.startsWith(`${CALLBACK}?`)).toBe(true);
    return http(exchange, 'POST', '/v1/auth/sso/acme/token', {
      body: { callbackUrl, codeVerifier: verifier, state, nonce },
    });
  }

  const whoami = async (token: string) =>
    (await http(exchange, 'GET', '/v1/whoami', { auth: bearer(token) })).body;
  const refresh = (refreshToken: string) =>
    http(exchange, 'POST', '/v1/auth/token/refresh', { body: { refreshToken } });

  beforeAll(async () => {
    idp = await startTestIdentityProvider([{ client_id: 'careen', redirect_uris: [CALLBACK] }]);
    const service = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_SSO_ALLOW_HTTP: 'true',
    });
    exchange = service.url;
    close = () => service.close();
    await seedExchange(exchange, {
      acme: { users: { ada: 'orgAdmin', otto: 'operator', mallory: 'viewer' } },
    });
    await Promise.all([idp.setGroups('alice', ['ops', 'staff']), idp.setGroups('bob', ['noc'])]);
  });
  afterAll(async () => {
    await close();
    await idp?.close();
  });

  it('keeps a provider an org admin sets, after discovering it, and never answers its secret', async () => {
    const refusals = await Promise.all([
      http(exchange, 'PUT', '/v1/orgs/acme/identity-provider', {
        auth: admin,
        body: provider({ scopes: ['profile'] }),
      }),
      http(exchange, 'PUT', '/v1/orgs/acme/identity-provider', {
        auth: admin,
        body: provider({ roleMappings: [{ group: 'ops', role: 'hubAdmin' }] }),
      }),
      http(exchange, 'PUT', '/v1/orgs/acme/identity-provider', {
        auth: admin,
        body: provider({ issuer: 'http://127.0.0.1:9/nothing-here' }),
      }),
      http(exchange, 'PUT', '/v1/orgs/acme/identity-provider', {
        auth: admin,
        body: provider({ colour: 'red' }),
      }),
      http(exchange, 'PUT', '/v1/orgs/acme/identity-provider', {
        auth: seededUser('acme', 'otto'),
        body: provider(),
      }),
    ]);
    expect(refusals.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 403]);
    expect(refusals[0]!.body.message).toContain('scopes must hold openid');
    expect(refusals[1]!.body.details.code).toBe('SSO_HUB_ROLE_OUTSIDE_HUB');
    expect(refusals[2]!.body).toMatchObject({ details: { code: 'SSO_ISSUER_UNUSABLE' } });
    expect(refusals[2]!.body.message).toContain('could not be reached');
    expect(JSON.stringify(refusals[3]!.body)).toContain('colour');

    expect((await http(exchange, 'GET', '/v1/auth/sso/acme')).body).toEqual({
      org: 'acme',
      passwordLogin: true,
      issuer: null,
    });
    const put = await http(exchange, 'PUT', '/v1/orgs/acme/identity-provider', {
      auth: admin,
      body: provider({ clientSecret: 'not-needed-by-a-public-client' }),
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ issuer: idp.issuer, clientSecretSet: true, passwordLogin: true });
    expect(JSON.stringify(put.body)).not.toContain('not-needed');
    await http(exchange, 'PUT', '/v1/orgs/acme/identity-provider', { auth: admin, body: provider() });
    expect((await http(exchange, 'GET', '/v1/auth/sso/acme')).body.issuer).toBe(idp.issuer);
  });

  it('signs a person in with the device grant, as the role their groups map to', async () => {
    const signedIn = await deviceSignIn('alice');
    expect(signedIn.status).toBe(200);
    expect(await whoami(signedIn.body.accessToken)).toEqual({
      kind: 'user',
      org: 'acme',
      username: 'alice',
      role: 'operator',
      idp: idp.issuer,
    });
    const user = await http(exchange, 'GET', '/v1/orgs/acme/users/alice', { auth: admin });
    expect(user.body).toMatchObject({ role: 'operator', identityProvider: idp.issuer });
    // No password opens an account of single sign-on.
    const password = await http(exchange, 'POST', '/v1/auth/token', {
      body: { org: 'acme', username: 'alice', password: 'sso' },
    });
    expect(password.status).toBe(401);
  });

  it('signs a person in with the authorization code and PKCE, refusing a replayed or tampered callback', async () => {
    const signedIn = await codeSignIn('bob');
    expect(signedIn.status).toBe(200);
    expect(await whoami(signedIn.body.accessToken)).toMatchObject({ username: 'bob', role: 'viewer' });

    const verifier = random();
    const [state, nonce] = [random(), random()];
    const authorize = await http(exchange, 'POST', '/v1/auth/sso/acme/authorize', {
      body: {
        redirectUri: CALLBACK,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        state,
        nonce,
      },
    });
    const callbackUrl = await idp.signIn(authorize.body.authorizationUrl, 'bob');
    const wrongVerifier = await http(exchange, 'POST', '/v1/auth/sso/acme/token', {
      body: { callbackUrl, codeVerifier: random(), state, nonce },
    });
    expect(wrongVerifier.status).toBe(401);
    expect(wrongVerifier.body.details.code).toBe('SSO_REFUSED');
    const wrongState = await http(exchange, 'POST', '/v1/auth/sso/acme/token', {
      body: { callbackUrl, codeVerifier: verifier, state: random(), nonce },
    });
    expect(wrongState.status).toBe(401);
  });

  it('refuses someone in no mapped group, naming their groups', async () => {
    await idp.setGroups('carol', ['sales']);
    const refused = await deviceSignIn('carol');
    expect(refused.status).toBe(403);
    expect(refused.body.details.code).toBe('SSO_NO_ROLE');
    expect(refused.body.message).toContain('sales');
    expect((await http(exchange, 'GET', '/v1/orgs/acme/users/carol', { auth: admin })).status).toBe(404);
  });

  it('follows the groups at each renewal, and ends the login of someone taken out of them', async () => {
    await idp.setGroups('dave', ['ops']);
    const signedIn = await codeSignIn('dave');
    expect(await whoami(signedIn.body.accessToken)).toMatchObject({ role: 'operator' });

    await idp.setGroups('dave', ['noc']);
    const demoted = await refresh(signedIn.body.refreshToken);
    expect(demoted.status).toBe(200);
    expect(await whoami(demoted.body.accessToken)).toMatchObject({ username: 'dave', role: 'viewer' });

    await idp.setGroups('dave', []);
    const removed = await refresh(demoted.body.refreshToken);
    expect(removed.status).toBe(403);
    expect(removed.body.details.code).toBe('SSO_NO_ROLE');
    // The login is over: put back in a group, the same refresh token does not bring it back.
    await idp.setGroups('dave', ['ops']);
    expect((await refresh(demoted.body.refreshToken)).status).toBe(401);
  });

  it('ends the login of someone removed from the provider', async () => {
    await idp.setGroups('erin', ['ops']);
    const signedIn = await deviceSignIn('erin');
    await idp.removeAccount('erin');
    const refused = await refresh(signedIn.body.refreshToken);
    expect(refused.status).toBe(401);
    expect(refused.body.details.code).toBe('SSO_REFUSED');
  });

  it('never takes over a local user of the same name', async () => {
    await idp.setGroups('otto', ['ops']);
    const refused = await deviceSignIn('otto');
    expect(refused.status).toBe(409);
    expect(refused.body.details.code).toBe('SSO_LOCAL_USER_EXISTS');
  });

  it('records each sign-in that made or changed a user as that person, through the provider', async () => {
    await eventually(async () => {
      const trail = await http(exchange, 'GET', '/v1/orgs/acme/audit?target=user/dave&limit=10', {
        auth: admin,
      });
      expect(
        trail.body.items.map((record: { actor: string; via: string; action: string }) => record),
      ).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ actor: 'acme/dave', via: `sso:${idp.issuer}`, action: 'user.created' }),
          expect.objectContaining({ actor: 'acme/dave', via: `sso:${idp.issuer}`, action: 'user.updated' }),
        ]),
      );
    });
  });

  it('refuses passwords once switched off, but for root/root, and allows them again when the provider goes', async () => {
    const password = await http(exchange, 'POST', '/v1/auth/token', {
      body: { org: 'acme', username: 'otto', password: 'otto-password' },
    });
    expect(password.status).toBe(200);
    const off = await http(exchange, 'PUT', '/v1/orgs/acme/identity-provider', {
      auth: admin,
      body: provider({ passwordLogin: false }),
    });
    expect(off.body.passwordLogin).toBe(false);
    expect((await http(exchange, 'GET', '/v1/auth/sso/acme')).body.passwordLogin).toBe(false);

    const refusals = await Promise.all([
      http(exchange, 'POST', '/v1/auth/token', {
        body: { org: 'acme', username: 'otto', password: 'otto-password' },
      }),
      http(exchange, 'GET', '/v1/orgs/acme', { auth: seededUser('acme', 'otto') }),
      refresh(password.body.refreshToken),
    ]);
    for (const refusal of refusals) {
      expect(refusal.status).toBe(403);
      expect(refusal.body.details.code).toBe('PASSWORD_LOGIN_DISABLED');
      expect(refusal.body.message).toContain('careen login --sso');
    }
    // The hub admin keeps its password: the way back in, to remove the provider.
    expect((await http(exchange, 'GET', '/v1/orgs/acme', { auth: seededRoot })).status).toBe(200);
    expect(
      (await http(exchange, 'DELETE', '/v1/orgs/acme/identity-provider', { auth: seededRoot })).status,
    ).toBe(204);
    expect((await http(exchange, 'GET', '/v1/orgs/acme', { auth: seededUser('acme', 'otto') })).status).toBe(
      200,
    );
    expect(
      (await http(exchange, 'GET', '/v1/orgs/acme/identity-provider', { auth: seededRoot })).status,
    ).toBe(404);
    expect((await http(exchange, 'POST', '/v1/auth/sso/acme/device')).body.details.code).toBe(
      'SSO_NOT_CONFIGURED',
    );
  });
});
