import {
  AuthModule,
  generateSigningKey,
  JwksTokenVerifier,
  type Principal,
  type SigningKeyMaterial,
  toJwks,
  TokenIssuer,
} from '@careen/auth';
import { createValidationPipe, HttpErrorFilter } from '@careen/service';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { ExchangeMirror } from '../mirror/exchange-mirror';
import { aNode, aPolicy, aService } from '../placement/placement.fixtures';
import { DeployCheckController } from './deploycheck.controller';
import { DeployCheckService } from './deploycheck.service';

const ISSUER = 'careen-exchange';
const AUDIENCE = 'careen';

/** The mirror's reads, from memory. */
const mirror = {
  allNodes: () =>
    Promise.resolve([aNode('edge-0', { haGroup: 'line-1' }), aNode('edge-1', { haGroup: 'line-1' })]),
  allResources: (resource: string) =>
    Promise.resolve(resource === 'deploymentPolicy' ? [aPolicy('web')] : [aService('1.0.0')]),
};

describe('POST /v1/orgs/:org/deploycheck', () => {
  let app: NestFastifyApplication;
  let key: SigningKeyMaterial;
  let issuer: TokenIssuer;
  const as = async (principal: Principal) => `Bearer ${(await issuer.issue(principal)).accessToken}`;
  const ulf: Principal = { kind: 'user', org: 'acme', username: 'ulf', role: 'operator' };

  beforeAll(async () => {
    key = await generateSigningKey();
    issuer = new TokenIssuer(key, { issuer: ISSUER, audience: AUDIENCE, ttlSeconds: 300 });
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuthModule.forRoot({
          verifier: {
            useFactory: () =>
              JwksTokenVerifier.local(() => toJwks([key]), { issuer: ISSUER, audience: AUDIENCE }),
          },
          keyAuthenticator: {
            useFactory: () => ({ authenticate: () => Promise.reject(new Error('no keys here')) }),
          },
          basicAuthenticator: {
            useFactory: () => ({
              authenticate: () => Promise.reject(new Error('no basic credentials here')),
            }),
          },
        }),
      ],
      controllers: [DeployCheckController],
      providers: [DeployCheckService, { provide: ExchangeMirror, useValue: mirror }],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    app.useGlobalPipes(createValidationPipe());
    app.useGlobalFilters(new HttpErrorFilter({ log() {}, error() {}, warn() {} }));
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers a user of the org with per-node and per-group verdicts', async () => {
    const response = await request(app.getHttpServer())
      .post('/v1/orgs/acme/deploycheck')
      .set('authorization', await as(ulf))
      .send({ deploymentPolicy: 'web', checkHA: true })
      .expect(200);
    expect(response.body).toMatchObject({
      compatible: true,
      nodes: [
        { node: 'edge-0', deployable: true, version: '1.0.0' },
        { node: 'edge-1', deployable: true, version: '1.0.0' },
      ],
      haGroups: [{ haGroup: 'line-1', staysAvailableDuringUpgrade: true }],
    });
  });

  it('refuses users of another org and nodes', async () => {
    const other: Principal = { kind: 'user', org: 'other', username: 'eve', role: 'orgAdmin' };
    const node: Principal = { kind: 'node', org: 'acme', node: 'edge-0' };
    for (const principal of [other, node]) {
      await request(app.getHttpServer())
        .post('/v1/orgs/acme/deploycheck')
        .set('authorization', await as(principal))
        .send({ deploymentPolicy: 'web' })
        .expect(403);
    }
  });

  it('answers 400 naming the fields, and 404 for what does not exist', async () => {
    const bad = await request(app.getHttpServer())
      .post('/v1/orgs/acme/deploycheck')
      .set('authorization', await as(ulf))
      .send({ checkHA: true, colour: 'red' })
      .expect(400);
    expect(bad.body.details.fields).toEqual(
      expect.arrayContaining([
        { field: 'deploymentPolicy', problems: ['give exactly one of deploymentPolicy and service'] },
        { field: 'colour', problems: ['property colour should not exist'] },
      ]),
    );
    const missing = await request(app.getHttpServer())
      .post('/v1/orgs/acme/deploycheck')
      .set('authorization', await as(ulf))
      .send({ deploymentPolicy: 'nope' })
      .expect(404);
    expect(missing.body).toMatchObject({
      statusCode: 404,
      message: 'deployment policy "acme/nope" not found',
    });
    await request(app.getHttpServer())
      .post('/v1/orgs/acme/deploycheck')
      .set('authorization', await as(ulf))
      .send({ deploymentPolicy: 'web', node: 'a', haGroup: 'b' })
      .expect(400);
  });
});
