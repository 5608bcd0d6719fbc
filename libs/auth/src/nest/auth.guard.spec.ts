import { Controller, Get, Param, Post, type Type } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { AuthenticationError, AuthErrorCode, AuthServiceUnavailableError } from '../auth.errors';
import { type BasicAuthenticator } from '../basic-authenticator';
import { type KeyAuthenticator } from '../api-key';
import { type Principal, type ServicePrincipal } from '../principal';
import { generateSigningKey, toJwks, type SigningKeyMaterial } from '../signing-key';
import { TokenIssuer } from '../token-issuer';
import { JwksTokenVerifier } from '../token-verifier';
import { AuthModule } from './auth.module';
import { CurrentPrincipal } from './current-principal.decorator';
import { AllowNodes } from './node-allowed.decorator';
import { OrgScoped } from './org-scoped.decorator';
import { Public } from './public.decorator';
import { NeedsRole } from './needs-role.decorator';
import { OnResource } from './resource.decorator';

const ISSUER = 'careen-exchange';
const AUDIENCE = 'careen';

const root: Principal = { kind: 'user', org: 'root', username: 'root', role: 'hubAdmin' };
const olga: Principal = { kind: 'user', org: 'acme', username: 'olga', role: 'orgAdmin' };
const ulf: Principal = { kind: 'user', org: 'acme', username: 'ulf', role: 'operator' };
const vera: Principal = { kind: 'user', org: 'acme', username: 'vera', role: 'viewer' };
const edge1: Principal = { kind: 'node', org: 'acme', node: 'edge-1' };

/** Basic credentials as the exchange would answer them, held in memory. */
class InMemoryBasicAuthenticator implements BasicAuthenticator {
  available = true;
  private readonly accounts = new Map<string, { secret: string; principal: Principal }>([
    ['acme/olga', { secret: 'olga:pw', principal: olga }],
    ['acme/edge-1', { secret: 'node-token', principal: edge1 }],
  ]);

  async authenticate(org: string, id: string, secret: string): Promise<Principal> {
    if (!this.available)
      throw new AuthServiceUnavailableError('the exchange could not be reached to check credentials');
    const account = this.accounts.get(`${org}/${id}`);
    if (!account || account.secret !== secret) {
      throw new AuthenticationError(AuthErrorCode.InvalidCredentials, 'invalid credentials');
    }
    return account.principal;
  }
}

const ROLLOUT_KEY = `ck_0123456789abcdef_${'r'.repeat(43)}`;
const READING_KEY = `ck_fedcba9876543210_${'v'.repeat(43)}`;
const GLOBEX_KEY = `ck_00000000000000aa_${'g'.repeat(43)}`;

/** Keys as the exchange would answer them, held in memory. */
class InMemoryKeyAuthenticator implements KeyAuthenticator {
  private readonly keys = new Map<string, ServicePrincipal>([
    [
      ROLLOUT_KEY,
      { kind: 'service', org: 'acme', account: 'ci', key: '0123456789abcdef', scopes: ['rollouts:write'] },
    ],
    [
      READING_KEY,
      { kind: 'service', org: 'acme', account: 'dash', key: 'fedcba9876543210', scopes: ['rollouts:read'] },
    ],
    [
      GLOBEX_KEY,
      { kind: 'service', org: 'globex', account: 'ci', key: '00000000000000aa', scopes: ['rollouts:write'] },
    ],
  ]);

  async authenticate(key: string): Promise<Principal> {
    const principal = this.keys.get(key);
    if (!principal) throw new AuthenticationError(AuthErrorCode.InvalidCredentials, 'invalid credentials');
    return principal;
  }
}

@Controller()
class ProbeController {
  @Public()
  @Get('healthz')
  health() {
    return { status: 'ok' };
  }

  @Get('whoami')
  whoami(@CurrentPrincipal() principal: Principal) {
    return principal;
  }

  @NeedsRole('orgAdmin')
  @OrgScoped()
  @Get('orgs/:org/users')
  listUsers(@Param('org') org: string) {
    return { org, items: [] };
  }

  @NeedsRole('operator')
  @OnResource('rollouts')
  @Post('orgs/:org/pause')
  pause(@Param('org') org: string) {
    return { org, paused: true };
  }

  @OnResource('rollouts')
  @Get('orgs/:org/rollouts')
  rollouts(@Param('org') org: string) {
    return { org, items: [] };
  }

  @AllowNodes()
  @OrgScoped()
  @Get('orgs/:org/changes')
  changes(@Param('org') org: string, @CurrentPrincipal() principal: Principal) {
    return { org, caller: principal.kind };
  }

  /** A route that forgot @OrgScoped(): its :org scopes it all the same. */
  @Get('orgs/:org/undecorated')
  undecorated(@Param('org') org: string) {
    return { org };
  }

  @OrgScoped('tenant')
  @Get('tenants/:tenant')
  tenant(@Param('tenant') tenant: string) {
    return { tenant };
  }
}

@NeedsRole('hubAdmin')
@Controller('packages')
class PackagesController {
  @Get()
  list() {
    return { items: [] };
  }

  @NeedsRole('operator')
  @Get('public-list')
  publicList() {
    return { items: [] };
  }
}

@AllowNodes()
@Controller('heartbeat')
class HeartbeatController {
  @Get()
  beat(@CurrentPrincipal() principal: Principal) {
    return { kind: principal.kind };
  }
}

@Public()
@Controller('docs')
class DocsController {
  @Get()
  docs(@CurrentPrincipal() principal: Principal | undefined) {
    return { authenticated: principal !== undefined };
  }
}

const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

describe('AuthGuard', () => {
  let app: NestFastifyApplication;
  let key: SigningKeyMaterial;
  let issuer: TokenIssuer;
  const basicAuthenticator = new InMemoryBasicAuthenticator();
  const bearer = async (principal: Principal) => `Bearer ${(await issuer.issue(principal)).accessToken}`;
  /** The controllers behind the guard, with the in-memory credentials above. */
  const testingModule = (controllers: Type[]) =>
    Test.createTestingModule({
      imports: [
        AuthModule.forRoot({
          verifier: {
            useFactory: () =>
              JwksTokenVerifier.local(() => toJwks([key]), { issuer: ISSUER, audience: AUDIENCE }),
          },
          basicAuthenticator: { useFactory: () => basicAuthenticator },
          keyAuthenticator: { useFactory: () => new InMemoryKeyAuthenticator() },
        }),
      ],
      controllers,
    }).compile();

  beforeAll(async () => {
    key = await generateSigningKey();
    issuer = new TokenIssuer(key, { issuer: ISSUER, audience: AUDIENCE, ttlSeconds: 300 });
    const moduleRef = await testingModule([
      ProbeController,
      PackagesController,
      HeartbeatController,
      DocsController,
    ]);
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app.close();
  });

  beforeEach(() => {
    basicAuthenticator.available = true;
  });

  describe('authentication', () => {
    it('lets anyone call a @Public() route without credentials', async () => {
      await request(app.getHttpServer()).get('/healthz').expect(200, { status: 'ok' });
      await request(app.getHttpServer()).get('/docs').expect(200, { authenticated: false });
    });

    it('rejects a request without credentials with 401, a JSON error body and both schemes offered', async () => {
      const response = await request(app.getHttpServer()).get('/whoami').expect(401);
      expect(response.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'missing credentials',
        details: { code: 'MISSING_CREDENTIALS' },
      });
      expect(response.headers['www-authenticate']).toBe('Bearer, Basic realm="careen"');
    });

    it('authenticates a bearer token and hands the principal to the handler', async () => {
      await request(app.getHttpServer())
        .get('/whoami')
        .set('Authorization', await bearer(ulf))
        .expect(200, ulf);
    });

    it('authenticates Basic org/id:secret credentials whose secret contains a colon', async () => {
      await request(app.getHttpServer())
        .get('/whoami')
        .set('Authorization', basic('acme/olga:olga:pw'))
        .expect(200, olga);
    });

    it('rejects wrong Basic credentials with 401', async () => {
      const response = await request(app.getHttpServer())
        .get('/whoami')
        .set('Authorization', basic('acme/olga:nope'))
        .expect(401);
      expect(response.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'invalid credentials',
        details: { code: 'INVALID_CREDENTIALS' },
      });
    });

    it('rejects malformed Basic credentials with 401 saying what the format is', async () => {
      const response = await request(app.getHttpServer())
        .get('/whoami')
        .set('Authorization', basic('olga:pw'))
        .expect(401);
      expect(response.body.message).toBe('basic credentials must be org/id:secret');
    });

    it('rejects an expired token with 401', async () => {
      const stale = new TokenIssuer(key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        ttlSeconds: 60,
        clock: () => new Date(Date.now() - 3600_000),
      });
      const { accessToken } = await stale.issue(ulf);
      const response = await request(app.getHttpServer())
        .get('/whoami')
        .set('Authorization', `Bearer ${accessToken}`)
        .expect(401);
      expect(response.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'token expired',
        details: { code: 'TOKEN_EXPIRED' },
      });
    });

    it('rejects a token signed by an unknown key with 401', async () => {
      const forger = new TokenIssuer(await generateSigningKey(), {
        issuer: ISSUER,
        audience: AUDIENCE,
        ttlSeconds: 60,
      });
      const { accessToken } = await forger.issue(root);
      const response = await request(app.getHttpServer())
        .get('/packages')
        .set('Authorization', `Bearer ${accessToken}`)
        .expect(401);
      expect(response.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'invalid token',
        details: { code: 'INVALID_TOKEN' },
      });
    });

    it('answers 503, not 401, when Basic credentials cannot be checked', async () => {
      basicAuthenticator.available = false;
      const response = await request(app.getHttpServer())
        .get('/whoami')
        .set('Authorization', basic('acme/olga:olga:pw'))
        .expect(503);
      expect(response.body).toEqual({
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'the exchange could not be reached to check credentials',
        details: { code: 'AUTH_SERVICE_UNAVAILABLE' },
      });
      expect(response.headers['www-authenticate']).toBeUndefined();
    });
  });

  describe('authorization', () => {
    it('rejects a node on a route without @AllowNodes() with 403', async () => {
      const response = await request(app.getHttpServer())
        .get('/whoami')
        .set('Authorization', basic('acme/edge-1:node-token'))
        .expect(403);
      expect(response.body).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: 'nodes may not call this route',
        details: { code: 'FORBIDDEN' },
      });
    });

    it('lets a node call an @AllowNodes() route of its own org', async () => {
      await request(app.getHttpServer())
        .get('/orgs/acme/changes')
        .set('Authorization', await bearer(edge1))
        .expect(200, { org: 'acme', caller: 'node' });
    });

    it('honours @AllowNodes() on a controller', async () => {
      await request(app.getHttpServer())
        .get('/heartbeat')
        .set('Authorization', await bearer(edge1))
        .expect(200, { kind: 'node' });
    });

    it('rejects a node reaching into another org with 403 naming the org', async () => {
      const response = await request(app.getHttpServer())
        .get('/orgs/globex/changes')
        .set('Authorization', await bearer(edge1))
        .expect(403);
      expect(response.body).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: 'acme/edge-1 has no access to org globex',
        details: { code: 'WRONG_ORG' },
      });
    });

    it('rejects a user without the required role with 403', async () => {
      const response = await request(app.getHttpServer())
        .get('/orgs/acme/users')
        .set('Authorization', await bearer(ulf))
        .expect(403);
      expect(response.body).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        message: 'role operator may not call this route; it needs orgAdmin or higher',
        details: { code: 'FORBIDDEN' },
      });
    });

    it('lets a viewer read but not call a route that needs an operator, which an operator may', async () => {
      await request(app.getHttpServer())
        .get('/orgs/acme/undecorated')
        .set('Authorization', await bearer(vera))
        .expect(200);
      const refused = await request(app.getHttpServer())
        .post('/orgs/acme/pause')
        .set('Authorization', await bearer(vera))
        .expect(403);
      expect(refused.body.message).toBe('role viewer may not call this route; it needs operator or higher');
      await request(app.getHttpServer())
        .post('/orgs/acme/pause')
        .set('Authorization', await bearer(ulf))
        .expect(201, { org: 'acme', paused: true });
      await request(app.getHttpServer())
        .post('/orgs/acme/pause')
        .set('Authorization', await bearer(olga))
        .expect(201);
    });

    it('lets an org admin call an org admin route of their org', async () => {
      await request(app.getHttpServer())
        .get('/orgs/acme/users')
        .set('Authorization', await bearer(olga))
        .expect(200, { org: 'acme', items: [] });
    });

    it('rejects an org admin of another org with 403', async () => {
      const globexAdmin: Principal = { kind: 'user', org: 'globex', username: 'gina', role: 'orgAdmin' };
      const response = await request(app.getHttpServer())
        .get('/orgs/acme/users')
        .set('Authorization', await bearer(globexAdmin))
        .expect(403);
      expect(response.body.message).toBe('globex/gina has no access to org acme');
    });

    it('lets a hub admin into any org and past any role requirement', async () => {
      const authorization = await bearer(root);
      await request(app.getHttpServer())
        .get('/orgs/acme/users')
        .set('Authorization', authorization)
        .expect(200);
      await request(app.getHttpServer()).get('/packages').set('Authorization', authorization).expect(200);
    });

    it('refuses another org on a route with an :org parameter and no decorator at all', async () => {
      const authorization = await bearer(ulf);
      await request(app.getHttpServer())
        .get('/orgs/acme/undecorated')
        .set('Authorization', authorization)
        .expect(200, { org: 'acme' });
      const refused = await request(app.getHttpServer())
        .get('/orgs/globex/undecorated')
        .set('Authorization', authorization)
        .expect(403);
      expect(refused.body.message).toBe('acme/ulf has no access to org globex');
      await request(app.getHttpServer())
        .get('/orgs/globex/undecorated')
        .set('Authorization', await bearer(root))
        .expect(200);
    });

    it('scopes by the route parameter @OrgScoped() names', async () => {
      const authorization = await bearer(ulf);
      await request(app.getHttpServer()).get('/tenants/acme').set('Authorization', authorization).expect(200);
      await request(app.getHttpServer())
        .get('/tenants/globex')
        .set('Authorization', authorization)
        .expect(403);
    });

    it('lets a handler @Roles() override its controller', async () => {
      const authorization = await bearer(ulf);
      await request(app.getHttpServer()).get('/packages').set('Authorization', authorization).expect(403);
      await request(app.getHttpServer())
        .get('/packages/public-list')
        .set('Authorization', authorization)
        .expect(200);
    });
  });

  describe("service accounts' keys", () => {
    const asKey = (key: string) => `Bearer ${key}`;

    it('lets a key call a route of a resource it has a scope of, and say who it is', async () => {
      await request(app.getHttpServer())
        .post('/orgs/acme/pause')
        .set('Authorization', asKey(ROLLOUT_KEY))
        .expect(201, { org: 'acme', paused: true });
      await request(app.getHttpServer())
        .get('/orgs/acme/rollouts')
        .set('Authorization', asKey(READING_KEY))
        .expect(200);
    });

    it('refuses a key without the scope with 403 naming the scope it lacks', async () => {
      const refused = await request(app.getHttpServer())
        .post('/orgs/acme/pause')
        .set('Authorization', asKey(READING_KEY))
        .expect(403);
      expect(refused.body.message).toBe(
        'key fedcba9876543210 of acme/sa:dash lacks the scope rollouts:write',
      );
    });

    it('keeps keys out of routes without a resource, and out of other orgs', async () => {
      const users = await request(app.getHttpServer())
        .get('/orgs/acme/users')
        .set('Authorization', asKey(ROLLOUT_KEY))
        .expect(403);
      expect(users.body.message).toBe('service accounts may not call this route');
      const foreign = await request(app.getHttpServer())
        .post('/orgs/acme/pause')
        .set('Authorization', asKey(GLOBEX_KEY))
        .expect(403);
      expect(foreign.body.message).toBe('globex/sa:ci has no access to org acme');
    });

    it('answers 401 to a key it does not know', async () => {
      await request(app.getHttpServer())
        .get('/orgs/acme/rollouts')
        .set('Authorization', asKey(`ck_1111111111111111_${'x'.repeat(43)}`))
        .expect(401);
    });
  });

  it('refuses to start a service with a write that names no role, naming the route', async () => {
    @Controller('v1/things')
    class CarelessController {
      @Post(':id/poke')
      poke() {
        return {};
      }
    }
    const moduleRef = await testingModule([CarelessController, ProbeController]);
    const careless = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
      logger: false,
    });
    await expect(careless.init()).rejects.toThrow(
      'routes that change state without @NeedsRole: POST v1/things/:id/poke (CarelessController.poke)',
    );
    await careless.close();
  });
});
