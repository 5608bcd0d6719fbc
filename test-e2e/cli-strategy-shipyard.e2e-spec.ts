/**
 * `careen strategy validate` run as its own process from the operator's folder, on Shipyard
 * documents: what Shipyard accepts passes with its warnings printed, what it refuses fails
 * naming every problem, and a YAML error is said whole. Nothing here needs a service.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCareen } from './support/cli-process';

const FILES = {
  'lenient.yaml': `schema: shipyard/DeploymentStrategy/v1
metadata:
  name: lenient
data:
  groups:
    - name: control
      critical: true
      depends_on: []
      owner: ops-team
      selectors:
        - node_tags: []
        - node_tags: [control]
`,
  'tangled.yaml': `name: tangled
groups:
  - {name: a, critical: true, depends_on: [b, ghost], selectors: []}
  - {name: b, critical: true, depends_on: [a], selectors: [], success_criteria: {}}
`,
  'broken.yaml': `name: broken
groups:
  - name: a
    critical: true
  selectors: []
`,
};

describe('careen strategy validate on Shipyard documents', () => {
  let workDir: string;

  const validate = (file: string) =>
    runCareen(['strategy', 'validate', join(workDir, file)], workDir, {
      HOME: workDir,
      CAREEN_CONFIG_DIR: join(workDir, 'config'),
    });

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-shipyard-'));
    for (const [name, text] of Object.entries(FILES)) await writeFile(join(workDir, name), text);
  });

  afterAll(() => rm(workDir, { recursive: true, force: true }));

  it('accepts what Shipyard accepts, printing a warning for a key no one reads and an ignored selector', async () => {
    const run = await validate('lenient.yaml');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('strategy "lenient" is valid: 1 group(s) in 1 stage(s)');
    expect(run.stdout).toMatch(/^warning: data\.groups\[0\]\.owner: .*ignored$/m);
    expect(run.stdout).toMatch(
      /^warning: data\.groups\[0\]\.selectors\[0\]: .*ignored beside other selectors/m,
    );
  });

  it('names every problem at once: an unknown group, the cycle and empty criteria', async () => {
    const run = await validate('tangled.yaml');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('groups[0].depends_on[1]: unknown group "ghost"');
    expect(run.stderr).toContain('groups: dependency cycle: a → b → a (each depends on the next)');
    expect(run.stderr).toContain('groups[1].success_criteria: at least one of');
  });

  it('says a YAML error whole, with the line it is on', async () => {
    const run = await validate('broken.yaml');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'All mapping items must start at the same column at line 5, column 1: "selectors: []"',
    );
  });
});
