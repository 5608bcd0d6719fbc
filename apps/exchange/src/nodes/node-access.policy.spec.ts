import { type Principal, type Role } from '@careen/auth';
import { DomainError } from '@careen/contracts';
import { assertMayModifyNode, assertNodeIsSelf } from './node-access.policy';
import { type NodeEntity } from './node.entity';

const node = { org: 'acme', id: 'n1', owner: 'acme/bob' } as NodeEntity;
const user = (username: string, role: Role, org = 'acme'): Principal => ({
  kind: 'user',
  org,
  username,
  role,
});
const nodePrincipal = (id: string, org = 'acme'): Principal => ({ kind: 'node', org, node: id });

function refusal(action: () => void): DomainError | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

describe('node access rules', () => {
  it('lets a node act on itself only', () => {
    expect(refusal(() => assertNodeIsSelf(nodePrincipal('n1'), 'acme', 'n1', 'read'))).toBeUndefined();
    expect(refusal(() => assertNodeIsSelf(nodePrincipal('n2'), 'acme', 'n1', 'read'))?.kind).toBe(
      'forbidden',
    );
    expect(refusal(() => assertNodeIsSelf(nodePrincipal('n1', 'beta'), 'acme', 'n1', 'read'))?.kind).toBe(
      'forbidden',
    );
  });

  it('leaves users to the route guard when checking node identity', () => {
    expect(refusal(() => assertNodeIsSelf(user('bob', 'operator'), 'acme', 'n1', 'read'))).toBeUndefined();
  });

  it('lets a plain user modify only the nodes they registered', () => {
    expect(refusal(() => assertMayModifyNode(user('bob', 'operator'), node))).toBeUndefined();
    const refused = refusal(() => assertMayModifyNode(user('cy', 'operator'), node));
    expect(refused?.kind).toBe('forbidden');
    expect(refused?.code).toBe('NOT_NODE_OWNER');
  });

  it('lets org admins and hub admins modify every node', () => {
    expect(refusal(() => assertMayModifyNode(user('ada', 'orgAdmin'), node))).toBeUndefined();
    expect(refusal(() => assertMayModifyNode(user('root', 'hubAdmin', 'root'), node))).toBeUndefined();
  });

  it('lets a node modify itself but no other node', () => {
    expect(refusal(() => assertMayModifyNode(nodePrincipal('n1'), node))).toBeUndefined();
    expect(refusal(() => assertMayModifyNode(nodePrincipal('n2'), node))?.code).toBe('NOT_THIS_NODE');
  });
});
