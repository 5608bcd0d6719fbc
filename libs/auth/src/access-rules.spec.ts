import { assertAccess, type AccessRequirements } from './access-rules';
import { AuthErrorCode, AuthorizationError } from './auth.errors';
import { type Principal } from './principal';

const hubAdmin: Principal = { kind: 'user', org: 'root', username: 'root', role: 'hubAdmin' };
const orgAdmin: Principal = { kind: 'user', org: 'acme', username: 'olga', role: 'orgAdmin' };
const user: Principal = { kind: 'user', org: 'acme', username: 'ulf', role: 'user' };
const node: Principal = { kind: 'node', org: 'acme', node: 'edge-1' };

function denial(principal: Principal, requirements: AccessRequirements): unknown {
  try {
    assertAccess(principal, requirements);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('assertAccess', () => {
  it('lets any user of the org through a route with no requirements', () => {
    expect(denial(user, {})).toBeUndefined();
  });

  it('keeps nodes out of routes that do not allow them', () => {
    expect(denial(node, {})).toEqual(
      new AuthorizationError(AuthErrorCode.Forbidden, 'nodes may not call this route'),
    );
    expect(denial(node, { roles: ['user'] })).toBeInstanceOf(AuthorizationError);
    expect(denial(node, { allowNodes: true })).toBeUndefined();
  });

  it('requires a listed role of users, and roles do not apply to allowed nodes', () => {
    expect(denial(orgAdmin, { roles: ['orgAdmin'] })).toBeUndefined();
    expect(denial(user, { roles: ['orgAdmin'] })).toMatchObject({
      code: AuthErrorCode.Forbidden,
      message: 'role user may not call this route; it needs orgAdmin',
    });
    expect(denial(node, { roles: ['orgAdmin'], allowNodes: true })).toBeUndefined();
  });

  it('lets a hub admin through any role requirement', () => {
    expect(denial(hubAdmin, { roles: ['orgAdmin'] })).toBeUndefined();
  });

  it('keeps users and nodes inside their own org, naming the org refused', () => {
    expect(denial(user, { org: 'acme' })).toBeUndefined();
    expect(denial(user, { org: 'globex' })).toMatchObject({
      code: AuthErrorCode.WrongOrg,
      message: 'acme/ulf has no access to org globex',
    });
    expect(denial(node, { org: 'globex', allowNodes: true })).toMatchObject({ code: AuthErrorCode.WrongOrg });
  });

  it('lets a hub admin into every org', () => {
    expect(denial(hubAdmin, { org: 'acme', roles: ['orgAdmin'] })).toBeUndefined();
  });
});
