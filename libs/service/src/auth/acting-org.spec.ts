import { AuthErrorCode, AuthorizationError, type Principal } from '@careen/auth';
import { actingOrg } from './acting-org';

const hubAdmin: Principal = { kind: 'user', org: 'root', username: 'root', role: 'hubAdmin' };
const orgAdmin: Principal = { kind: 'user', org: 'acme', username: 'olga', role: 'orgAdmin' };
const user: Principal = { kind: 'user', org: 'acme', username: 'ulf', role: 'operator' };
const node: Principal = { kind: 'node', org: 'acme', node: 'edge-1' };

function refusal(act: () => unknown): unknown {
  try {
    act();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('actingOrg', () => {
  it("acts on the caller's own org when the request names none", () => {
    expect(actingOrg(user, undefined)).toBe('acme');
    expect(actingOrg(hubAdmin, undefined)).toBe('root');
  });

  it('acts on the org the request names when the caller may', () => {
    expect(actingOrg(user, 'acme')).toBe('acme');
    expect(actingOrg(hubAdmin, 'acme')).toBe('acme');
  });

  it('refuses another org with the answer of the access rules, naming the org', () => {
    expect(refusal(() => actingOrg(orgAdmin, 'globex'))).toEqual(
      new AuthorizationError(AuthErrorCode.WrongOrg, 'acme/olga has no access to org globex'),
    );
  });

  it('leaves roles to the route: an operator acts in its org', () => {
    expect(actingOrg(user, undefined)).toBe('acme');
    expect(refusal(() => actingOrg(user, 'globex'))).toMatchObject({ code: AuthErrorCode.WrongOrg });
  });

  it('keeps nodes out unless the route lets them in', () => {
    expect(refusal(() => actingOrg(node, undefined))).toEqual(
      new AuthorizationError(AuthErrorCode.Forbidden, 'nodes may not call this route'),
    );
    expect(actingOrg(node, undefined, { allowNodes: true })).toBe('acme');
  });
});
