import { type UpgradeHolderKind } from '@careen/contracts';
import { decideSlot, type SlotQuestion } from './slot-rule';
import { type UpgradeGrant } from './upgrade-grant';

const NOW = new Date('2026-11-24T10:00:00.000Z');
const seconds = (offset: number) => new Date(NOW.getTime() + offset * 1000);

function slot(node: string, overrides: Partial<UpgradeGrant> = {}): UpgradeGrant {
  return {
    org: 'acme',
    node,
    kind: 'agent-upgrade',
    haGroup: 'alpha',
    managementPolicy: 'nmp',
    grantedAt: seconds(-60),
    leaseExpiresAt: seconds(60),
    haltedAt: null,
    haltError: null,
    ...overrides,
  };
}

function ask(
  node: string,
  held: UpgradeGrant[],
  overrides: Partial<SlotQuestion> & { kind?: UpgradeHolderKind } = {},
): SlotQuestion {
  const kind = overrides.kind ?? 'agent-upgrade';
  return {
    node,
    kind,
    managementPolicy: kind === 'agent-upgrade' ? 'nmp' : null,
    fleetLockSlots: 1,
    groupLimit: 1,
    haGroup: 'alpha',
    held,
    now: NOW,
    policyStopped: false,
    ...overrides,
  };
}

const verdict = (question: SlotQuestion) => {
  const { answer } = decideSlot(question);
  return answer.outcome === 'refuse' ? `refuse: ${answer.blocker.node}` : answer.outcome;
};

describe('the slot rule', () => {
  describe('an agent upgrade', () => {
    it('is granted in a free group', () => {
      expect(decideSlot(ask('a', []))).toEqual({ release: [], answer: { outcome: 'grant' } });
    });

    it('waits while any other member holds a slot, of either kind', () => {
      expect(verdict(ask('a', [slot('b')]))).toBe('refuse: b');
      expect(verdict(ask('a', [slot('b', { kind: 'fleetlock', managementPolicy: null })]))).toBe('refuse: b');
    });

    it('names a halted member before an older holder: it is why the group waits', () => {
      const older = slot('b', { grantedAt: seconds(-600) });
      const halted = slot('c', { haltedAt: seconds(-10), haltError: 'health check failed' });
      expect(verdict(ask('a', [older, halted]))).toBe('refuse: c');
    });

    it('names the oldest holder when none is halted', () => {
      const held = [slot('c', { grantedAt: seconds(-30) }), slot('b', { grantedAt: seconds(-90) })];
      expect(verdict(ask('a', held))).toBe('refuse: b');
    });

    it('is refused for a stopped policy, but a holder still renews', () => {
      expect(verdict(ask('a', [], { policyStopped: true }))).toBe('policy-stopped');
      expect(verdict(ask('a', [slot('a')], { policyStopped: true }))).toBe('renew');
    });

    it('is never blocked by the node’s own FleetLock slot', () => {
      const own = slot('a', { kind: 'fleetlock', managementPolicy: null });
      expect(verdict(ask('a', [own]))).toBe('grant');
    });

    it('for another policy gives the node’s slot back and asks anew', () => {
      const own = slot('a', { managementPolicy: 'old' });
      const decision = decideSlot(ask('a', [own]));
      expect(decision.release).toEqual([{ grant: own, reason: 'released' }]);
      expect(decision.answer).toEqual({ outcome: 'grant' });
    });

    it('for another policy while halted keeps the slot: the halt follows the policy', () => {
      const own = slot('a', { managementPolicy: 'old', haltedAt: seconds(-5) });
      expect(decideSlot(ask('a', [own]))).toEqual({ release: [], answer: { outcome: 'renew', grant: own } });
    });
  });

  describe('a FleetLock reboot', () => {
    const reboot = { kind: 'fleetlock' as const };
    const rebooting = (node: string) => slot(node, { kind: 'fleetlock', managementPolicy: null });

    it('waits for an agent upgrade in the group', () => {
      expect(verdict(ask('a', [slot('b')], reboot))).toBe('refuse: b');
    });

    it('is granted while fewer members reboot than the group admits', () => {
      expect(verdict(ask('a', [rebooting('b')], { ...reboot, fleetLockSlots: 2 }))).toBe('grant');
      expect(verdict(ask('a', [rebooting('b'), rebooting('c')], { ...reboot, fleetLockSlots: 2 }))).toBe(
        'refuse: b',
      );
    });

    it('ignores whether its policy is stopped', () => {
      expect(verdict(ask('a', [], { ...reboot, policyStopped: true }))).toBe('grant');
    });

    it('waits for a member in maintenance, whatever the slots', () => {
      const maintained = slot('b', { kind: 'maintenance', managementPolicy: null });
      expect(verdict(ask('a', [maintained], { ...reboot, fleetLockSlots: 5 }))).toBe('refuse: b');
    });
  });

  describe('a maintenance', () => {
    const maintenance = { kind: 'maintenance' as const };
    const maintained = (node: string, overrides: Partial<UpgradeGrant> = {}) =>
      slot(node, { kind: 'maintenance', managementPolicy: null, ...overrides });

    it('is granted in a free group, and renewed by asking again', () => {
      expect(verdict(ask('a', [], maintenance))).toBe('grant');
      expect(verdict(ask('a', [maintained('a')], maintenance))).toBe('renew');
    });

    it('waits while any other member holds a slot, of any kind', () => {
      expect(verdict(ask('a', [slot('b')], maintenance))).toBe('refuse: b');
      expect(verdict(ask('a', [slot('b', { kind: 'fleetlock', managementPolicy: null })], maintenance))).toBe(
        'refuse: b',
      );
      expect(verdict(ask('a', [maintained('b')], maintenance))).toBe('refuse: b');
    });

    it('blocks an agent upgrade of another member, and names it', () => {
      expect(verdict(ask('b', [maintained('a')]))).toBe('refuse: a');
    });

    it('is never blocked by the node’s own agent-upgrade slot', () => {
      expect(verdict(ask('a', [slot('a')], maintenance))).toBe('grant');
    });

    it('ignores whether a policy is stopped', () => {
      expect(verdict(ask('a', [], { ...maintenance, policyStopped: true }))).toBe('grant');
    });

    it('lapses like any lease', () => {
      const { release, answer } = decideSlot(
        ask('a', [maintained('b', { leaseExpiresAt: seconds(-1) })], maintenance),
      );
      expect(release.map(({ grant, reason }) => [grant.node, reason])).toEqual([['b', 'lease-expired']]);
      expect(answer.outcome).toBe('grant');
    });
  });

  describe("a group's maxUnavailable", () => {
    const two = { groupLimit: 2 };

    it('lets members of any kind in while fewer than the limit are down, counting a node once', () => {
      expect(verdict(ask('b', [slot('a')], two))).toBe('grant');
      expect(
        verdict(ask('c', [slot('a'), slot('b', { kind: 'maintenance', managementPolicy: null })], two)),
      ).toBe('refuse: a');
      expect(
        verdict(ask('c', [slot('a'), slot('a', { kind: 'fleetlock', managementPolicy: null })], two)),
      ).toBe('grant');
      expect(verdict(ask('b', [slot('a')], { ...two, kind: 'fleetlock', managementPolicy: null }))).toBe(
        'grant',
      );
    });

    it('still lets no member start while one is halted', () => {
      expect(verdict(ask('b', [slot('a', { haltedAt: seconds(-10), haltError: 'boom' })], two))).toBe(
        'refuse: a',
      );
    });
  });

  describe('stale slots', () => {
    it('releases lapsed leases first, in key order, and then decides without them', () => {
      const lapsedC = slot('c', { leaseExpiresAt: seconds(-1) });
      const lapsedB = slot('b', { leaseExpiresAt: NOW });
      const decision = decideSlot(ask('a', [lapsedC, lapsedB]));
      expect(decision.release).toEqual([
        { grant: lapsedB, reason: 'lease-expired' },
        { grant: lapsedC, reason: 'lease-expired' },
      ]);
      expect(decision.answer).toEqual({ outcome: 'grant' });
    });

    it('keeps a halted slot whose lease ran out: a halt has no lease end', () => {
      const halted = slot('b', { leaseExpiresAt: seconds(-3600), haltedAt: seconds(-3600) });
      const decision = decideSlot(ask('a', [halted]));
      expect(decision.release).toEqual([]);
      expect(decision.answer).toEqual({ outcome: 'refuse', blocker: halted });
    });

    it('releases the node’s slots held for a group it left, halted or not', () => {
      const before = slot('a', { haGroup: 'beta', haltedAt: seconds(-5) });
      const decision = decideSlot(ask('a', [before]));
      expect(decision.release).toEqual([{ grant: before, reason: 'left-group' }]);
      expect(decision.answer).toEqual({ outcome: 'grant' });
    });
  });

  describe('a node outside any group', () => {
    it('has a semaphore of its own: only its own slot matters', () => {
      const own = slot('a', { haGroup: null });
      expect(verdict(ask('a', [own], { haGroup: null }))).toBe('renew');
      expect(verdict(ask('a', [], { haGroup: null }))).toBe('grant');
    });
  });
});
