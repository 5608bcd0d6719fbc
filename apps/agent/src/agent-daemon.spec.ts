import { createLogger } from '@careen/telemetry';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentConfig } from './agent.config';
import { AgentDaemon } from './agent-daemon';
import { AgentStateError, AgentStateStore } from './state/agent-state.store';

const silent = createLogger('agent', { level: 'fatal' });

function config(dir: string, overrides: Partial<AgentConfig> = {}): AgentConfig {
  return Object.assign(new AgentConfig(), {
    CAREEN_EXCHANGE_URL: 'http://127.0.0.1:1',
    CAREEN_AGENT_ORG: 'acme',
    CAREEN_AGENT_STATE_DIR: dir,
    ...overrides,
  });
}

describe('AgentDaemon', () => {
  let dir: string;

  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'careen-agent-')), 'state');
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps its identity in the state folder and is the same node after a restart', async () => {
    const first = await new AgentDaemon(
      config(dir, { CAREEN_AGENT_NODE_ID: 'edge-1', CAREEN_AGENT_TOKEN: 'a-token-of-sixteen+' }),
      new AgentStateStore(dir),
      silent,
    ).start();
    const second = await new AgentDaemon(config(dir), new AgentStateStore(dir), silent).start();

    expect(first).toMatchObject({ nodeId: 'edge-1', starts: 1 });
    expect(second).toMatchObject({ nodeId: 'edge-1', token: 'a-token-of-sixteen+', starts: 2 });
  });

  it('writes the state file readable by its owner only and leaves no temporary file behind', async () => {
    const store = new AgentStateStore(dir);
    await new AgentDaemon(config(dir, { CAREEN_AGENT_NODE_ID: 'edge-1' }), store, silent).start();

    expect((await stat(store.file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('refuses to start without a node id on its first run', async () => {
    await expect(new AgentDaemon(config(dir), new AgentStateStore(dir), silent).start()).rejects.toThrow(
      'CAREEN_AGENT_NODE_ID',
    );
  });

  it('refuses a state folder that belongs to another node', async () => {
    await new AgentDaemon(
      config(dir, { CAREEN_AGENT_NODE_ID: 'edge-1' }),
      new AgentStateStore(dir),
      silent,
    ).start();
    await expect(
      new AgentDaemon(
        config(dir, { CAREEN_AGENT_NODE_ID: 'edge-2' }),
        new AgentStateStore(dir),
        silent,
      ).start(),
    ).rejects.toThrow('belongs to acme/edge-1');
  });

  it.each([
    ['not JSON', '{"schemaVersion": 1,'],
    ['missing fields', '{"schemaVersion": 1, "org": "acme"}'],
  ])('names a state file that is %s instead of guessing', async (_what, content) => {
    const store = new AgentStateStore(dir);
    await new AgentDaemon(config(dir, { CAREEN_AGENT_NODE_ID: 'edge-1' }), store, silent).start();
    await writeFile(store.file, content);
    await expect(store.load()).rejects.toThrow(AgentStateError);
    await expect(store.load()).rejects.toThrow(store.file);
  });
});
