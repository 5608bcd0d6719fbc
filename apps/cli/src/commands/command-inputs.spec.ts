import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventLine } from './events.command';
import { readJsonObject } from './file-input';
import { parseMembers } from './hagroup.commands';
import { NMP_TEMPLATE, selectsEveryNode } from './nmp.commands';
import { parseLabels } from './node.commands';
import { subscriptionRequest } from './subscription.commands';

describe('parseMembers', () => {
  it('splits on commas, trims and drops empty entries', () => {
    expect(parseMembers('a, b,,c ')).toEqual(['a', 'b', 'c']);
    expect(parseMembers('')).toEqual([]);
  });
});

describe('parseLabels', () => {
  it('maps key=value pairs, keeping any later "=" in the value', () => {
    expect(parseLabels(['zone=eu-1', 'expr=a=b', 'empty='])).toEqual({
      zone: 'eu-1',
      expr: 'a=b',
      empty: '',
    });
  });

  it('refuses a pair without a key', () => {
    expect(() => parseLabels(['=x'])).toThrow('--label must be key=value, not "=x"');
    expect(() => parseLabels(['zone'])).toThrow('--label must be key=value');
  });
});

describe('selectsEveryNode', () => {
  it('is true only for an enabled policy with "*" or no selection at all', () => {
    expect(selectsEveryNode({ enabled: true })).toBe(true);
    expect(selectsEveryNode({ enabled: true, patterns: ['*'], constraints: ['a == 1'] })).toBe(true);
    expect(selectsEveryNode({ enabled: false })).toBe(false);
    expect(selectsEveryNode({})).toBe(false);
    expect(selectsEveryNode({ enabled: true, nodes: ['n1'] })).toBe(false);
    expect(selectsEveryNode({ enabled: true, patterns: ['acme/gw'] })).toBe(false);
    expect(selectsEveryNode({ enabled: true, constraints: ['a == 1'] })).toBe(false);
  });
});

describe('readJsonObject', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'careen-input-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('ignores // comment lines, so the nmp template parses', async () => {
    const file = join(dir, 'template.json');
    await writeFile(file, NMP_TEMPLATE);
    expect(await readJsonObject(file)).toMatchObject({ enabled: false, patterns: [] });
  });

  it.each([
    ['{\n  // the limit\n  "failureThreshold": 1,\n  "enabled": tru\n}\n', 4, 14, 'invalid symbol at "tru"'],
    ['// a policy\n{\n  "label": "x",\n}\n', 4, 1, 'property name expected at "}"'],
    ['{\n  "label": "x"\n', 3, 1, 'close brace expected at the end'],
  ])('says where the file as written is not JSON: %j', async (text, line, column, what) => {
    const file = join(dir, 'broken.json');
    await writeFile(file, text);
    await expect(readJsonObject(file)).rejects.toThrow(`${file}:${line}:${column}: not valid JSON: ${what}`);
  });

  it('refuses anything but a JSON object', async () => {
    const file = join(dir, 'list.json');
    await writeFile(file, '[1]');
    await expect(readJsonObject(file)).rejects.toThrow(`${file} must hold a JSON object`);
    await expect(readJsonObject(join(dir, 'missing.json'))).rejects.toThrow('cannot read');
  });
});

describe('subscriptionRequest', () => {
  it('asks for a webhook with its URL and format (cloudevents unless said)', () => {
    expect(subscriptionRequest({ project: 'shop', kind: 'webhook', url: 'https://h/' })).toEqual({
      scope: 'project',
      project_id: 'shop',
      kind: 'webhook',
      url: 'https://h/',
      format: 'cloudevents',
    });
  });

  it("asks for Fenix's event names when told", () => {
    expect(
      subscriptionRequest({
        project: 'shop',
        kind: 'webhook',
        url: 'https://h/',
        format: 'aodh',
        eventNames: 'fenix',
      }),
    ).toMatchObject({ format: 'aodh', event_names: 'fenix' });
  });

  it('asks for nats and sse subscriptions without URL or format', () => {
    expect(subscriptionRequest({ project: 'shop', kind: 'nats' })).toEqual({
      scope: 'project',
      project_id: 'shop',
      kind: 'nats',
    });
  });

  it.each([
    [{ project: 'shop', kind: 'webhook' }, 'a webhook subscription needs --url'],
    [
      { project: 'shop', kind: 'nats', url: 'https://h/' },
      '--url, --format and --event-names go with --kind webhook',
    ],
    [
      { project: 'shop', kind: 'sse', format: 'aodh' },
      '--url, --format and --event-names go with --kind webhook',
    ],
    [{ project: 'shop', kind: 'sse', eventNames: 'fenix' }, '--event-names go with --kind webhook'],
    [{ kind: 'webhook', url: 'https://h/' }, 'exactly one of --project P'],
  ])('refuses %j', (options, message) => {
    expect(() => subscriptionRequest(options)).toThrow(message);
  });
});

describe('eventLine', () => {
  it('shows when, what, which session and host, and the id to resume after', () => {
    expect(
      eventLine('17', {
        id: 'e-1',
        time: '2026-12-01T02:00:00.000Z',
        data: { state: 'PREPARE_MAINTENANCE', session_id: 's-1', host: 'edge-1' },
      }),
    ).toBe('2026-12-01T02:00:00.000Z  PREPARE_MAINTENANCE         session s-1  host edge-1  (id 17)');
  });
});
