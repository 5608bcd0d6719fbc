/**
 * Who may act on a node: a node only on itself; an operator on the nodes they registered;
 * org admins and hub admins on every node of the org (org membership is checked by the guard).
 */
import { principalId, roleAllows, type Principal } from '@careen/auth';
import { type NodeEntity } from './node.entity';
import { notNodeOwner, notThisNode } from './nodes.errors';

/** A node principal addressing another node is refused; users pass through. */
export function assertNodeIsSelf(actor: Principal, org: string, id: string, action: string): void {
  if (actor.kind === 'node' && (actor.org !== org || actor.node !== id)) throw notThisNode(action);
}

export function assertMayModifyNode(actor: Principal, node: NodeEntity): void {
  switch (actor.kind) {
    case 'node':
      assertNodeIsSelf(actor, node.org, node.id, 'change');
      return;
    case 'user':
      if (!roleAllows(actor.role, 'orgAdmin') && node.owner !== principalId(actor))
        throw notNodeOwner(node.org, node.id);
      return;
    case 'service':
      // Its key's `nodes:write` scope, judged by the guard, covers every node of the org.
      return;
  }
}
