/**
 * The HA-group view's reading: each group's members with their state, who holds the group's
 * slot (from the agbot), and which members wait for it (their management status
 * `ha-waiting`).
 */
export interface GroupMember {
  node: string;
  version: string | null;
  /** The member's newest management status under an enabled policy, if any. */
  status: { nmp: string; status: string; error: string | null } | null;
  holdsSlot: boolean;
  waiting: boolean;
}

export interface GroupSlot {
  state: 'free' | 'busy' | 'halted';
  holder: {
    node: string;
    kind: string;
    managementPolicy: string | null;
    grantedAt: string;
    leaseExpiresAt: string | null;
  } | null;
  halted: { node: string; managementPolicy: string | null; error: string | null; since: string } | null;
}

export interface GroupView {
  name: string;
  description: string;
  slot: GroupSlot;
  members: GroupMember[];
  waiting: string[];
}

export interface StatusOf {
  node: string;
  nmp: string;
  status: string;
  error: string | null;
  updated: string;
}

export function groupViews(
  groups: { name: string; description: string; members: string[] }[],
  slots: ({ haGroup: string } & GroupSlot)[],
  versions: Map<string, string | null>,
  statuses: StatusOf[],
): GroupView[] {
  const slotOf = new Map(slots.map((slot) => [slot.haGroup, slot]));
  const newest = new Map<string, StatusOf>();
  for (const status of statuses) {
    const before = newest.get(status.node);
    if (!before || before.updated < status.updated) newest.set(status.node, status);
  }
  return groups.map((group) => {
    const slot = slotOf.get(group.name) ?? { state: 'free', holder: null, halted: null };
    const members = group.members.map((node) => {
      const status = newest.get(node);
      return {
        node,
        version: versions.get(node) ?? null,
        status: status ? { nmp: status.nmp, status: status.status, error: status.error } : null,
        holdsSlot: slot.holder?.node === node || slot.halted?.node === node,
        waiting: status?.status === 'ha-waiting',
      };
    });
    return {
      name: group.name,
      description: group.description,
      slot: { state: slot.state, holder: slot.holder, halted: slot.halted },
      members,
      waiting: members.filter((member) => member.waiting).map((member) => member.node),
    };
  });
}
