/**
 * A halt that outlives its policy, as an operator meets it with `careen` run as its own process
 * from a folder of its own, against the real exchange and agbot and a small simulated fleet: a
 * failing package halts an HA group; removing the policy says that the group stays halted and
 * how to end it; `careen hagroup reset` ends the halt, and the group's next member upgrades.
 */
import { eventually, http, useTestInfra } from '@careen/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BROKEN, type BrokenMemberHub, GROUP, PEER, startBrokenMemberHub } from './support/broken-member-hub';
import { runCareen } from './support/cli-process';
import { ACME_ADMIN, ORG_ADMIN } from './support/rollout-hub';

interface GroupView {
  haGroup: string;
  state: string;
  halted: { node: string; managementPolicy: string | null; policyRemoved: boolean } | null;
}

describe('careen ending a halt whose policy was removed', () => {
  const infra = useTestInfra();
  let fixture: BrokenMemberHub;
  let workDir: string;

  /** `careen …` as its own process, in the temporary folder, as acme's admin. */
  const careen = (args: string[]) =>
    runCareen(args, workDir, {
      HOME: workDir,
      CAREEN_CONFIG_DIR: join(workDir, 'config'),
      CAREEN_EXCHANGE_URL: fixture.hub.exchange.url,
      CAREEN_AGBOT_URL: fixture.hub.agbot.url,
      CAREEN_ORG: 'acme',
      CAREEN_USER: ORG_ADMIN.username,
      CAREEN_PASSWORD: ORG_ADMIN.password,
    });
  const statusOf = async (node: string, nmp: string) => (await fixture.reportOf(node, nmp)).status;
  const publish = (name: string, nodes: string[]) => fixture.publish(name, nodes);
  const group = async () =>
    (
      (await http(fixture.hub.agbot.url, 'GET', '/v1/orgs/acme/upgrade-groups', { auth: ACME_ADMIN })).body
        .items as GroupView[]
    ).find((each) => each.haGroup === GROUP);

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'careen-halt-reset-'));
    fixture = await startBrokenMemberHub(infra, 'cli-halt-reset');
  });

  afterAll(async () => {
    await fixture?.hub.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('says what removing the policy leaves halted, and hagroup reset lets the next member go', async () => {
    expect((await publish('breaks', [BROKEN])).status).toBe(201);
    await eventually(async () => expect(await statusOf(BROKEN, 'breaks')).toBe('rollback-failed'), {
      timeoutMs: 60_000,
    });
    await eventually(async () =>
      expect(await group()).toMatchObject({ state: 'halted', halted: { node: BROKEN } }),
    );
    expect((await publish('follow-up', [PEER])).status).toBe(201);
    await eventually(async () => expect(await statusOf(PEER, 'follow-up')).toBe('ha-waiting'), {
      timeoutMs: 30_000,
    });

    const removed = await careen(['nmp', 'remove', 'breaks', '--yes']);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('removed management policy "acme/breaks"');
    expect(removed.stdout).toContain(
      `HA group "${GROUP}" stays halted: node "${BROKEN}" failed (rollback-failed`,
    );
    expect(removed.stdout).toContain(`careen hagroup reset ${GROUP} --node ${BROKEN}`);
    // The halt outlives its policy, and the groups' view says so.
    await eventually(async () =>
      expect(await group()).toMatchObject({
        state: 'halted',
        halted: { node: BROKEN, managementPolicy: 'breaks', policyRemoved: true },
      }),
    );
    // `hagroup list` shows it with the way out.
    const listed = await careen(['hagroup', 'list']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    expect(listed.stdout).toContain(
      `halted by ${BROKEN} (breaks, removed): careen hagroup reset ${GROUP} --node ${BROKEN}`,
    );
    // The policy's reset cannot end it any more.
    const policyReset = await careen(['nmp', 'reset', 'breaks', '--node', BROKEN]);
    expect([policyReset.code, policyReset.stderr]).toEqual([1, expect.stringContaining('not found (404)')]);

    // A whole group is reset only once confirmed.
    const unconfirmed = await careen(['hagroup', 'reset', GROUP]);
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toContain('pass --yes');
    expect((await group())?.state).toBe('halted');

    const reset = await careen(['hagroup', 'reset', GROUP, '--yes']);
    expect(reset).toMatchObject({ code: 0 });
    expect(reset.stdout).toContain(`ended the halt of HA group "acme/${GROUP}" by node "${BROKEN}"`);
    await eventually(async () => expect(await statusOf(PEER, 'follow-up')).toBe('successful'), {
      timeoutMs: 60_000,
    });
    expect(fixture.fleet.agents.find((agent) => agent.node === PEER)!.core.version).toBe('2.0.0');
    expect((await group())?.state).toBe('free');

    // Once ended, resetting the node again changes nothing and says so.
    const again = await careen(['hagroup', 'reset', GROUP, '--node', BROKEN]);
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain(`node "${BROKEN}" does not halt HA group "acme/${GROUP}"`);
  }, 180_000);
});
