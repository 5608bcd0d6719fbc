import { createHash, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { request as request_ } from 'node:http';
import { gzipSync } from 'node:zlib';
import { connectBus, type BusConnection } from '@careen/bus';
import { STREAMS } from '@careen/contracts';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { basic, eventually, http, readStream, useTestInfra, type Credentials } from '@careen/testing';
import { DataSource } from 'typeorm';
import { type ExchangeConfig } from '../exchange.config';
import { exchangeService } from '../exchange.service';
import { agentPackage, packageOf } from './agent-package.fixtures';

const ROOT_PASSWORD = 'root-password-1';
const MAX_BYTES = 3 * 1024 * 1024;
const root = basic('root', 'root', ROOT_PASSWORD);
const ada = basic('acme', 'ada', 'ada-password');
const bob = basic('acme', 'bob', 'bob-password');
const n1 = basic('acme', 'n1', 'n1-token-secret');

function authorization(auth: Credentials): Record<string, string> {
  if (!auth) return {};
  if ('bearer' in auth) return { authorization: `Bearer ${auth.bearer}` };
  return { authorization: `Basic ${Buffer.from(auth.basic).toString('base64')}` };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('exchange: agent packages', () => {
  const infra = useTestInfra();
  let exchange: InProcessService<ExchangeConfig>;
  let bus: BusConnection;
  const call = (method: string, path: string, options?: Parameters<typeof http>[3]) =>
    http(exchange.url, method, path, options);
  const upload = (bytes: Buffer, auth: Credentials = root, headers: Record<string, string> = {}) =>
    call('POST', '/v1/agent-packages', {
      auth,
      rawBody: bytes,
      headers: { 'content-type': 'application/gzip', ...headers },
    });
  const download = async (
    version: string,
    headers: Record<string, string> = {},
    auth: Credentials = root,
  ) => {
    const response = await fetch(new URL(`/v1/agent-packages/${version}/content`, exchange.url), {
      headers: { ...authorization(auth), ...headers },
    });
    return {
      status: response.status,
      headers: response.headers,
      bytes: Buffer.from(await response.arrayBuffer()),
    };
  };

  // Incompressible, so the package spans several 1 MiB storage chunks.
  const bigPayload = randomBytes(2.5 * 1024 * 1024).toString('base64');
  let big: Buffer;

  beforeAll(async () => {
    exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: ROOT_PASSWORD,
      CAREEN_AGENT_PACKAGE_MAX_BYTES: String(MAX_BYTES),
    });
    bus = await connectBus({ url: infra.natsUrl, name: 'agent-packages-test' });
    await call('POST', '/v1/orgs', { auth: root, body: { id: 'acme' } });
    await call('POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'ada', password: 'ada-password', role: 'orgAdmin' },
    });
    await call('POST', '/v1/orgs/acme/users', {
      auth: root,
      body: { username: 'bob', password: 'bob-password', role: 'operator' },
    });
    await call('PUT', '/v1/orgs/acme/nodes/n1', { auth: ada, body: { token: 'n1-token-secret' } });
    big = await packageOf([
      { name: 'package.json', content: JSON.stringify({ version: '3.0.0' }) },
      { name: 'packages/' },
      { name: 'packages/careen-agent.deb', content: bigPayload.slice(0, 2 * 1024 * 1024) },
    ]);
    expect(big.length).toBeGreaterThan(1.5 * 1024 * 1024);
    expect((await upload(big)).status).toBe(201);
  });

  afterAll(async () => {
    await bus.close();
    await exchange.close();
  });

  describe('upload', () => {
    it('accepts a hub admin’s package and answers its manifest, size and sha256', async () => {
      const bytes = await agentPackage('1.2.0', { sslVersion: '1.0.0', configVersion: '4' });
      const created = await upload(bytes);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        version: '1.2.0',
        manifest: { version: '1.2.0', packagesVersion: '1.2.0', sslVersion: '1.0.0', configVersion: '4' },
        sha256: sha256(bytes),
        size: bytes.length,
        type: 'careen.agent-package',
        public: true,
        uploadedBy: 'root/root',
        uploadedAt: expect.any(String),
      });
      expect((await call('GET', '/v1/agent-packages/1.2.0', { auth: root })).body).toEqual(created.body);
    });

    it('lists packages newest semantic version first', async () => {
      for (const version of ['1.10.0', '1.9.0', '1.10.0-rc.1']) {
        expect((await upload(await agentPackage(version))).status).toBe(201);
      }
      const list = await call('GET', '/v1/agent-packages', { auth: root });
      expect(list.status).toBe(200);
      const versions = list.body.items.map((item: { version: string }) => item.version);
      expect(versions).toEqual(['3.0.0', '1.10.0', '1.10.0-rc.1', '1.9.0', '1.2.0']);
      expect(list.body.total).toBe(5);
    });

    it('publishes the new package on CAREEN_CHANGES under an underscored version', async () => {
      const [message] = await readStream(bus, STREAMS.changes.name, {
        count: 1,
        filterSubject: 'careen.changes.root.agentPackage.3_0_0',
      });
      expect(message?.body).toMatchObject({
        org: 'root',
        resource: 'agentPackage',
        resourceId: '3_0_0',
        operation: 'created',
        data: { version: '3.0.0', type: 'careen.agent-package' },
      });
    });

    it("shows the new package on every org's change feed, to its nodes too", async () => {
      const changes = await eventually(async () => {
        const feed = await call('GET', '/v1/orgs/acme/changes?since=0', { auth: n1 });
        expect(feed.status).toBe(200);
        const found = feed.body.changes.filter(
          (change: { resource: string; resourceId: string }) =>
            change.resource === 'agentPackage' && change.resourceId === '3_0_0',
        );
        expect(found).toHaveLength(1);
        return found;
      });
      expect(changes[0]).toMatchObject({ org: 'root', operation: 'created', data: { version: '3.0.0' } });
    });

    it('refuses a version that already exists with 409, build metadata or not', async () => {
      const again = await upload(await agentPackage('1.2.0', {}, 'different bytes'));
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({
        statusCode: 409,
        error: 'Conflict',
        message: expect.stringContaining('1.2.0'),
      });
      expect((await upload(await agentPackage('1.2.0+build.2'))).status).toBe(409);
    });

    it.each<[string, () => Promise<Buffer>, RegExp]>([
      ['bytes that are not gzip', async () => Buffer.from('PK\u0003\u0004 a zip, not a tarball'), /not gzip/],
      [
        'a truncated gzip stream',
        async () => {
          const whole = await agentPackage('5.0.0', {}, 'y'.repeat(20_000));
          return whole.subarray(0, whole.length - 200);
        },
        /truncated/,
      ],
      ['gzip that is not a tar', async () => gzipSync('plain text '.repeat(100)), /not a valid tar/],
      ['a package without package.json', () => packageOf([{ name: 'packages/' }]), /no package.json/],
      [
        'a package whose manifest is only nested',
        () =>
          packageOf([{ name: 'config/' }, { name: 'config/package.json', content: '{"version":"5.0.0"}' }]),
        /config\/package.json/,
      ],
      [
        'a manifest whose version is not semver',
        () => packageOf([{ name: 'package.json', content: '{"version":"5.0"}' }]),
        /version "5.0" is not a semantic version/,
      ],
      [
        'an unexpected top-level entry',
        () =>
          packageOf([
            { name: 'package.json', content: '{"version":"5.0.0"}' },
            { name: 'scripts/' },
            { name: 'scripts/run.sh', content: 'rm -rf /' },
          ]),
        /unexpected top-level entry "scripts"/,
      ],
      [
        'a path traversal entry',
        () =>
          packageOf([
            { name: 'package.json', content: '{"version":"5.0.0"}' },
            { name: 'packages/../../etc/cron.d/x', content: '* * * * * root sh' },
          ]),
        /packages\/\.\.\/\.\.\/etc\/cron\.d\/x/,
      ],
    ])('refuses %s with 400 naming the problem', async (_what, build, message) => {
      const refused = await upload(await build());
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        statusCode: 400,
        error: 'Bad Request',
        message: expect.stringMatching(message),
      });
      expect(refused.body.details.code).toEqual(expect.stringMatching(/^PACKAGE_/));
      expect((await call('GET', '/v1/agent-packages/5.0.0', { auth: root })).status).toBe(404);
    });

    it('refuses a package over the configured limit with 413 and stores nothing', async () => {
      const oversize = await packageOf([
        { name: 'package.json', content: '{"version":"6.0.0"}' },
        { name: 'packages/' },
        { name: 'packages/huge.bin', content: randomBytes(MAX_BYTES) },
      ]);
      const refused = await upload(oversize);
      expect(refused.status).toBe(413);
      expect(refused.body).toMatchObject({
        statusCode: 413,
        error: 'Payload Too Large',
        message: expect.any(String),
      });
      expect((await call('GET', '/v1/agent-packages/6.0.0', { auth: root })).status).toBe(404);
    });

    it('answers 413 while a body without a length is still arriving, and closes the connection', async () => {
      const url = new URL('/v1/agent-packages', exchange.url);
      const answer = await new Promise<{ status: number; body: string; connection?: string }>(
        (resolve, reject) => {
          const request = request_(url, {
            method: 'POST',
            headers: {
              ...authorization(root),
              'content-type': 'application/gzip',
              'transfer-encoding': 'chunked',
            },
          });
          let sent = 0;
          const pump = () => {
            while (sent < MAX_BYTES * 4) {
              sent += 64 * 1024;
              if (
                !request.write(
                  sent === 64 * 1024
                    ? Buffer.concat([Buffer.from([0x1f, 0x8b]), randomBytes(65534)])
                    : randomBytes(64 * 1024),
                )
              )
                return void request.once('drain', pump);
            }
            request.end();
          };
          request.on('response', (response) => {
            let body = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (body += chunk));
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, body, connection: response.headers.connection }),
            );
          });
          request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
          pump();
        },
      );
      expect(answer.status).toBe(413);
      expect(answer.connection).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    });

    it('lets only hub admins upload: org admins and nodes get 403, anonymous callers 401', async () => {
      const bytes = await agentPackage('7.0.0');
      expect((await upload(bytes, ada)).status).toBe(403);
      expect((await upload(bytes, n1)).status).toBe(403);
      const anonymous = await call('POST', '/v1/agent-packages', {
        rawBody: bytes,
        headers: { 'content-type': 'application/gzip' },
      });
      expect(anonymous.status).toBe(401);
      expect((await call('GET', '/v1/agent-packages/7.0.0', { auth: root })).status).toBe(404);
    });

    it('refuses a body sent as JSON or another media type with 415', async () => {
      const refused = await upload(await agentPackage('7.1.0'), root, { 'content-type': 'text/plain' });
      expect(refused.status).toBe(415);
      expect(refused.body.statusCode).toBe(415);
    });

    it('keeps an ed25519 signature sent with the package, and it verifies against the stored bytes', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const bytes = await agentPackage('8.0.0');
      const signature = sign(null, bytes, privateKey).toString('base64');
      const created = await upload(bytes, root, { 'x-careen-signature': signature });
      expect(created.status).toBe(201);
      expect(created.body.signature).toBe(signature);
      const stored = await download('8.0.0');
      expect(verify(null, stored.bytes, publicKey, Buffer.from(created.body.signature, 'base64'))).toBe(true);
    });

    it('refuses a malformed signature header with 400', async () => {
      const bytes = await agentPackage('8.1.0');
      const notBase64 = await upload(bytes, root, { 'x-careen-signature': 'this is no signature' });
      expect(notBase64.status).toBe(400);
      expect(notBase64.body.message).toContain('x-careen-signature');
      const tooShort = await upload(bytes, root, {
        'x-careen-signature': randomBytes(32).toString('base64'),
      });
      expect(tooShort.status).toBe(400);
      expect((await call('GET', '/v1/agent-packages/8.1.0', { auth: root })).status).toBe(404);
    });
  });

  describe('reading', () => {
    it('lets users of any org and nodes list and read packages', async () => {
      expect((await call('GET', '/v1/agent-packages', { auth: bob })).status).toBe(200);
      expect((await call('GET', '/v1/agent-packages', { auth: n1 })).body.total).toBeGreaterThan(0);
      expect((await call('GET', '/v1/agent-packages/3.0.0', { auth: n1 })).body.version).toBe('3.0.0');
      expect((await download('3.0.0', {}, n1)).status).toBe(200);
      expect((await call('GET', '/v1/agent-packages')).status).toBe(401);
    });

    it('answers 404 for an unknown version', async () => {
      expect((await call('GET', '/v1/agent-packages/9.9.9', { auth: root })).status).toBe(404);
      expect((await download('9.9.9')).status).toBe(404);
    });

    it('serves the exact bytes uploaded, with their length and sha256 as ETag', async () => {
      const whole = await download('3.0.0');
      expect(whole.status).toBe(200);
      expect(whole.bytes.equals(big)).toBe(true);
      expect(sha256(whole.bytes)).toBe(
        (await call('GET', '/v1/agent-packages/3.0.0', { auth: root })).body.sha256,
      );
      expect(whole.headers.get('content-length')).toBe(String(big.length));
      expect(whole.headers.get('etag')).toBe(`"${sha256(big)}"`);
      expect(whole.headers.get('accept-ranges')).toBe('bytes');
      expect(whole.headers.get('content-type')).toBe('application/gzip');
    });

    it("answers HEAD with the whole package's headers and no body", async () => {
      const response = await fetch(new URL('/v1/agent-packages/3.0.0/content', exchange.url), {
        method: 'HEAD',
        headers: authorization(root),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe(String(big.length));
      expect(response.headers.get('etag')).toBe(`"${sha256(big)}"`);
      expect((await response.arrayBuffer()).byteLength).toBe(0);
    });

    it('resumes a download: two ranges across storage chunks reassemble the package', async () => {
      const half = Math.floor(big.length / 2);
      const first = await download('3.0.0', { range: `bytes=0-${half - 1}` });
      const second = await download('3.0.0', { range: `bytes=${half}-`, 'if-range': `"${sha256(big)}"` });
      expect([first.status, second.status]).toEqual([206, 206]);
      expect(first.headers.get('content-range')).toBe(`bytes 0-${half - 1}/${big.length}`);
      expect(second.headers.get('content-range')).toBe(`bytes ${half}-${big.length - 1}/${big.length}`);
      expect(second.headers.get('content-length')).toBe(String(big.length - half));
      expect(Buffer.concat([first.bytes, second.bytes]).equals(big)).toBe(true);
    });

    it('serves a suffix range and a range that ends past the package', async () => {
      const tail = await download('3.0.0', { range: 'bytes=-1000' });
      expect(tail.status).toBe(206);
      expect(tail.bytes.equals(big.subarray(big.length - 1000))).toBe(true);
      const overlong = await download('3.0.0', { range: `bytes=${1024 * 1024 - 10}-${big.length * 2}` });
      expect(overlong.status).toBe(206);
      expect(overlong.bytes.equals(big.subarray(1024 * 1024 - 10))).toBe(true);
    });

    it('answers 416 with the size for a range past the end', async () => {
      const refused = await download('3.0.0', { range: `bytes=${big.length}-` });
      expect(refused.status).toBe(416);
      expect(refused.headers.get('content-range')).toBe(`bytes */${big.length}`);
      expect(JSON.parse(refused.bytes.toString('utf8'))).toMatchObject({ statusCode: 416 });
    });

    it("reads a package's bytes from the database once, then serves them from memory", async () => {
      const queries = jest.spyOn(exchange.app.get(DataSource), 'query');
      const chunkReads = () =>
        queries.mock.calls.filter(([sql]) => String(sql).includes('agent_package_chunks')).length;
      try {
        expect((await upload(await agentPackage('3.5.0', {}, 'cached'))).status).toBe(201);
        queries.mockClear();
        expect((await download('3.5.0')).status).toBe(200);
        expect(chunkReads()).toBe(1);
        const again = await download('3.5.0', { range: 'bytes=10-' });
        expect(again.status).toBe(206);
        expect(chunkReads()).toBe(1);
      } finally {
        queries.mockRestore();
      }
    });

    it('sends the whole package when If-Range names another version of the bytes', async () => {
      const stale = await download('3.0.0', { range: 'bytes=0-99', 'if-range': '"0000"' });
      expect(stale.status).toBe(200);
      expect(stale.bytes.equals(big)).toBe(true);
    });
  });

  describe('removing', () => {
    it('removes a package and its bytes for hub admins only, and says so on the change feed', async () => {
      expect((await upload(await agentPackage('6.0.0'))).status).toBe(201);
      expect((await call('DELETE', '/v1/agent-packages/6.0.0', { auth: ada })).status).toBe(403);
      const head = (await call('GET', '/v1/orgs/acme/changes/head', { auth: n1 })).body.lastId;
      expect((await call('DELETE', '/v1/agent-packages/6.0.0', { auth: root })).status).toBe(204);
      expect((await call('GET', '/v1/agent-packages/6.0.0', { auth: root })).status).toBe(404);
      expect((await download('6.0.0')).status).toBe(404);
      expect((await call('DELETE', '/v1/agent-packages/6.0.0', { auth: root })).status).toBe(404);
      const feed = await call('GET', `/v1/orgs/acme/changes?since=${head}&wait=5`, { auth: n1 });
      expect(feed.body.changes).toContainEqual(
        expect.objectContaining({ resource: 'agentPackage', resourceId: '6_0_0', operation: 'deleted' }),
      );
    });

    it('serves the new bytes of a version removed and published again, never the ones it kept', async () => {
      const first = await agentPackage('6.2.0', {}, 'first bytes');
      const second = await agentPackage('6.2.0', {}, 'second bytes, not the first');
      expect((await upload(first)).status).toBe(201);
      expect((await download('6.2.0')).bytes.equals(first)).toBe(true);
      expect((await call('DELETE', '/v1/agent-packages/6.2.0', { auth: root })).status).toBe(204);
      expect((await upload(second)).status).toBe(201);
      const served = await download('6.2.0');
      expect(served.headers.get('etag')).toBe(`"${sha256(second)}"`);
      expect(served.bytes.equals(second)).toBe(true);
    });

    it('refuses to remove the version an enabled management policy names', async () => {
      expect((await upload(await agentPackage('6.1.0'))).status).toBe(201);
      const policy = { nodes: ['n1'], enabled: true, agentUpgradePolicy: { atLeastVersion: '6.1.0' } };
      await call('PUT', '/v1/orgs/acme/management-policies/to-six', { auth: ada, body: policy });
      const refused = await call('DELETE', '/v1/agent-packages/6.1.0', { auth: root });
      expect(refused.status).toBe(409);
      expect(refused.body.details).toMatchObject({ code: 'PACKAGE_IN_USE', policies: ['acme/to-six'] });
      await call('PUT', '/v1/orgs/acme/management-policies/to-six', {
        auth: ada,
        body: { ...policy, enabled: false },
      });
      expect((await call('DELETE', '/v1/agent-packages/6.1.0', { auth: root })).status).toBe(204);
    });
  });
});
