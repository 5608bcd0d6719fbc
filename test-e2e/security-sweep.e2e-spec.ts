/**
 * Every route of every hub service, read from its own OpenAPI document, called as an attacker
 * or a careless client would: without credentials, as another org's admin, as a node speaking
 * for another node, with arbitrary JSON bodies, and with bodies made from the route's own
 * request schema and then mutated (fast-check, from a fixed seed). Each is
 * refused (401, 403, 404 or another 4xx), never with another org's data, and nothing is
 * answered with a 500. Each role is tried against each route too: a viewer changes nothing and
 * reads all of its org; an operator manages no users. Requests go a few at a time, as many clients' would; the bodies of
 * one route go one after another, in the order the seed gives.
 */
import {
  basic,
  bearer,
  http,
  seededNode,
  seededUser,
  seedExchange,
  useTestInfra,
  type Credentials,
} from '@careen/testing';
import { SCOPES } from '@careen/auth';
import fc from 'fast-check';
import { startAllServices } from './support/all-services';
import { mutatedValuesOf, type Components, type SchemaObject } from './support/schema-bodies';

interface Operation {
  service: string;
  url: string;
  method: string;
  path: string;
  /** What opens it: a login, the capability a maintenance event carries, or nothing. */
  security: 'login' | 'capability' | 'none';
  hasBody: boolean;
  /** Its JSON request body's schema, if it documents one. */
  bodySchema?: SchemaObject;
}

/**
 * Routes anyone may call: health, metrics, the documents, token issuing and single sign-on, keys,
 * FleetLock (by network).
 */
const PUBLIC =
  /^\/(healthz|readyz|metrics|docs|\.well-known)|^\/v1\/(auth\/token|auth\/sso|pre-reboot|steady-state)|jwks/;
/** A VNF manager's routes, opened by the capability its events carry instead of a login. */
const CAPABILITY = /^\/v1\/maintenance\/\{session\}\/\{project\}/;

/** POSTs that only answer a question (where a policy could run, what a strategy would do): a viewer may ask. */
const QUESTIONS = /^\/v1\/(orgs\/\{org\}\/deploycheck|strategies\/\{name\}\/plan)$/;
/** Who may do what to whom: an org's users, service accounts and identity provider, and orgs themselves. */
const IDENTITY = /\/(users|service-accounts|identity-provider)(\/|$)|^\/v1\/orgs$/;
/**
 * Reads a viewer may not make: the org's users but their own record, its service accounts, its
 * identity provider, its audit trail.
 */
const ADMIN_READS = /^\/v1\/orgs\/\{org\}\/(users|service-accounts|identity-provider|audit)(\/|$)/;

/** Routes called at once: enough to overlap the services' waits, few enough for two cores. */
const LANES = 4;

/** Runs `work` on every item, at most `lanes` at a time. */
async function inLanes<T>(items: Iterable<T>, lanes: number, work: (item: T) => Promise<void>) {
  const queue = items[Symbol.iterator]();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      for (let next = queue.next(); !next.done; next = queue.next()) await work(next.value);
    }),
  );
}

/** A path with its parameters filled: `org` from `org`, a node from `node`, anything else made up. */
function fill(path: string, values: { org: string; node: string }): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === 'org' || name === 'orgId') return values.org;
    if (/node/i.test(name)) return values.node;
    return `sweep-${name.toLowerCase()}`;
  });
}

describe('security sweep over every route', () => {
  const infra = useTestInfra();
  const operations: Operation[] = [];
  const components: Components = {};
  const other: Credentials = seededUser('beta', 'mallory');
  const stranger = basic('acme', 'alice', 'not-her-password');
  /**
   * Alice's access token, for the body sweeps: a password is checked with scrypt on every
   * request by design, and these sweeps are about the bodies, not her login.
   */
  let alice: Credentials;
  /** Tokens of acme's viewer and operator, for the role sweeps. */
  let vera: Credentials;
  let otto: Credentials;
  /** A key of a service account holding every read scope and no write one. */
  let reader: Credentials;

  beforeAll(async () => {
    const services = await startAllServices(infra);
    await seedExchange(services.exchange!, {
      acme: { users: { alice: 'orgAdmin', vera: 'viewer', otto: 'operator' }, nodes: ['n1', 'n2'] },
      beta: { users: { mallory: 'orgAdmin' }, nodes: ['b1'] },
    });
    const tokenOf = async (username: string) => {
      const token = await http(services.exchange!, 'POST', '/v1/auth/token', {
        body: { org: 'acme', username, password: `${username}-password` },
      });
      expect(token.status).toBe(200);
      return bearer((token.body as { accessToken: string }).accessToken);
    };
    [alice, vera, otto] = await Promise.all(['alice', 'vera', 'otto'].map(tokenOf));
    await http(services.exchange!, 'POST', '/v1/orgs/acme/service-accounts', {
      auth: alice,
      body: { name: 'reader' },
    });
    const key = await http(services.exchange!, 'POST', '/v1/orgs/acme/service-accounts/reader/keys', {
      auth: alice,
      body: { scopes: SCOPES.filter((scope) => scope.endsWith(':read')) },
    });
    expect(key.status).toBe(201);
    reader = bearer((key.body as { key: string }).key);
    for (const [service, url] of Object.entries(services)) {
      const document = (await http(url, 'GET', '/docs/openapi.json')).body as {
        paths: Record<
          string,
          Record<string, { requestBody?: { content?: Record<string, { schema?: SchemaObject }> } }>
        >;
        components?: { schemas?: Components };
      };
      Object.assign(components, document.components?.schemas);
      for (const [path, methods] of Object.entries(document.paths))
        for (const [method, operation] of Object.entries(methods))
          operations.push({
            service,
            url,
            method: method.toUpperCase(),
            path,
            security: CAPABILITY.test(path) ? 'capability' : PUBLIC.test(path) ? 'none' : 'login',
            hasBody: operation.requestBody !== undefined,
            bodySchema: operation.requestBody?.content?.['application/json']?.schema,
          });
    }
  }, 120_000);

  const call = (operation: Operation, auth: Credentials | undefined, path: string, body?: unknown) =>
    http(operation.url, operation.method, path, { auth, body });

  it('finds the routes of every service', () => {
    expect(new Set(operations.map((operation) => operation.service)).size).toBe(5);
    expect(operations.length).toBeGreaterThan(80);
  });

  it('answers 401 to callers without credentials or with wrong ones, and never 500', async () => {
    const wrong: string[] = [];
    await inLanes(
      operations.filter((each) => each.security === 'login'),
      LANES,
      async (operation) => {
        const path = fill(operation.path, { org: 'acme', node: 'n1' });
        for (const auth of [undefined, stranger]) {
          const { status } = await call(operation, auth, path, operation.hasBody ? {} : undefined);
          if (status !== 401)
            wrong.push(`${operation.method} ${path} (${auth ? 'wrong password' : 'none'}): ${status}`);
        }
      },
    );
    expect(wrong.sort()).toEqual([]);
  });

  it('refuses capability routes without their capability or with a made-up one', async () => {
    const capabilityRoutes = operations.filter((each) => each.security === 'capability');
    expect(capabilityRoutes.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    await inLanes(capabilityRoutes, LANES, async (operation) => {
      const path = operation.path
        .replace('{session}', '6d7f0c2e-3a1b-4c5d-8e9f-0a1b2c3d4e5f')
        .replace('{project}', 'shop');
      for (const query of ['', '?capability=made-up-capability']) {
        const body = operation.hasBody ? { state: 'ACK_MAINTENANCE' } : undefined;
        const { status } = await call(operation, undefined, path + query, body);
        if (![400, 403, 404].includes(status)) wrong.push(`${operation.method} ${path}${query}: ${status}`);
      }
    });
    expect(wrong.sort()).toEqual([]);
  });

  it("keeps another org's admin out of acme's routes: 403 or 404, never its data", async () => {
    const wrong: string[] = [];
    await inLanes(
      operations.filter((each) => each.security === 'login' && each.path.includes('{org')),
      LANES,
      async (operation) => {
        const path = fill(operation.path, { org: 'acme', node: 'n1' });
        const answer = await call(operation, other, path, operation.hasBody ? {} : undefined);
        if (![403, 404].includes(answer.status) || JSON.stringify(answer.body).includes('"alice"'))
          wrong.push(
            `${operation.method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}`,
          );
      },
    );
    expect(wrong.sort()).toEqual([]);
  });

  it('lets a viewer change nothing: every route but a read or a question refuses it with 403', async () => {
    const writes = operations.filter(
      (each) =>
        each.security === 'login' && !['GET', 'HEAD'].includes(each.method) && !QUESTIONS.test(each.path),
    );
    expect(writes.length).toBeGreaterThan(50);
    const wrong: string[] = [];
    await inLanes(writes, LANES, async (operation) => {
      const path = fill(operation.path, { org: 'acme', node: 'n1' });
      const answer = await call(operation, vera, path, operation.hasBody ? {} : undefined);
      const message = (answer.body as { message?: unknown } | undefined)?.message;
      if (answer.status !== 403 || !String(message).startsWith('role viewer may not call this route'))
        wrong.push(
          `${operation.method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}`,
        );
    });
    expect(wrong.sort()).toEqual([]);
  });

  it("lets a viewer read all of its org's routes but other users, service accounts and the audit trail", async () => {
    const reads = operations.filter(
      (each) => each.security === 'login' && each.method === 'GET' && each.path.includes('{org'),
    );
    const refused: string[] = [];
    await inLanes(reads, LANES, async (operation) => {
      const path = fill(operation.path, { org: 'acme', node: 'n1' });
      const { status } = await call(operation, vera, path);
      if (status === 403 || status === 401) refused.push(operation.path);
    });
    expect(refused.sort()).toEqual(
      reads
        .filter((each) => ADMIN_READS.test(each.path))
        .map((each) => each.path)
        .sort(),
    );
  });

  it('lets a key with every read scope change nothing and manage no identity', async () => {
    const writes = operations.filter(
      (each) =>
        each.security === 'login' &&
        (!['GET', 'HEAD'].includes(each.method) || IDENTITY.test(each.path)) &&
        !QUESTIONS.test(each.path),
    );
    const wrong: string[] = [];
    await inLanes(writes, LANES, async (operation) => {
      const path = fill(operation.path, { org: 'acme', node: 'n1' });
      const answer = await call(operation, reader, path, operation.hasBody ? {} : undefined);
      const message = String((answer.body as { message?: unknown } | undefined)?.message);
      if (
        answer.status !== 403 ||
        !/lacks the scope \w+:write$|^service accounts may not call this route$/.test(message)
      )
        wrong.push(`${operation.method} ${path}: ${answer.status} ${message}`);
    });
    expect(wrong.sort()).toEqual([]);
  });

  it('keeps an operator out of user, service-account and org management with 403', async () => {
    const management = operations.filter(
      (each) => each.security === 'login' && IDENTITY.test(each.path) && each.method !== 'GET',
    );
    expect(management.length).toBeGreaterThanOrEqual(3);
    const wrong: string[] = [];
    await inLanes(management, LANES, async (operation) => {
      const path = fill(operation.path, { org: 'acme', node: 'n1' });
      const { status } = await call(operation, otto, path, operation.hasBody ? {} : undefined);
      if (status !== 403) wrong.push(`${operation.method} ${path}: ${status}`);
    });
    expect(wrong.sort()).toEqual([]);
  });

  it('keeps a node out of the routes of another node: refused, never answered', async () => {
    const wrong: string[] = [];
    const nodeRoutes = operations.filter(
      (each) => each.security === 'login' && /\{\w*node\w*\}/i.test(each.path),
    );
    expect(nodeRoutes.length).toBeGreaterThan(3);
    await inLanes(nodeRoutes, LANES, async (operation) => {
      const path = fill(operation.path, { org: 'acme', node: 'n2' });
      const { status } = await call(
        operation,
        seededNode('acme', 'n1'),
        path,
        operation.hasBody ? {} : undefined,
      );
      // A body that does not validate may be refused for that first (400); nothing passes.
      if (![400, 403, 404].includes(status)) wrong.push(`${operation.method} ${path}: ${status}`);
    });
    expect(wrong.sort()).toEqual([]);
  });

  it('answers arbitrary JSON bodies without a 500', async () => {
    // The same bodies every run; CAREEN_SWEEP_SEED tries others.
    const seed = Number(process.env.CAREEN_SWEEP_SEED ?? 20261126);
    const bodies = fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: 40, seed });
    const failures: string[] = [];
    await inLanes(
      operations.filter((each) => each.security !== 'none' && each.hasBody),
      LANES,
      async (operation) => {
        const path = fill(operation.path, { org: 'acme', node: 'n1' });
        for (const body of bodies) {
          const answer = await call(operation, alice, path, body);
          if (answer.status >= 500)
            failures.push(
              `${operation.method} ${path} ${JSON.stringify(body).slice(0, 80)}: ${answer.status}`,
            );
        }
      },
    );
    expect(failures.sort()).toEqual([]);
  });

  it("answers bodies made from the route's own schema, then mutated, without a 500", async () => {
    const seed = Number(process.env.CAREEN_SWEEP_SEED ?? 20261126);
    const described = operations.filter((each) => each.security !== 'none' && each.bodySchema);
    expect(described.length).toBeGreaterThan(20);
    const failures: string[] = [];
    const answered = new Map<number, number>();
    await inLanes(described, LANES, async (operation) => {
      const path = fill(operation.path, { org: 'acme', node: 'n1' });
      for (const body of fc.sample(mutatedValuesOf(operation.bodySchema!, components), {
        numRuns: 25,
        seed,
      })) {
        const answer = await call(operation, alice, path, body);
        answered.set(answer.status, (answered.get(answer.status) ?? 0) + 1);
        if (answer.status >= 500)
          failures.push(
            `${operation.method} ${path} ${JSON.stringify(body).slice(0, 120)}: ${answer.status}`,
          );
      }
    });
    expect(failures.sort()).toEqual([]);
    // The bodies try both sides of validation: some are refused for what is wrong in them, some
    // get past it and are taken.
    expect(answered.get(400)).toBeGreaterThan(0);
    expect([...answered.keys()].filter((status) => status < 300)).not.toEqual([]);
  });
});
