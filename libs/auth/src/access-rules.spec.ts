import { assertAccess, type AccessRequirements } from './access-rules';
import { AuthErrorCode, AuthorizationError } from './auth.errors';
import { type Principal } from './principal';

const hubAdmin: Principal = { kind: 'user', org: 'root', username: 'root', role: 'hubAdmin' };
const orgAdmin: Principal = { kind: 'user', org: 'acme', username: 'olga', role: 'orgAdmin' };
const user: Principal = { kind: 'user', org: 'acme', username: 'ulf', role: 'operator' };
const viewer: Principal = { kind: 'user', org: 'acme', username: 'vera', role: 'viewer' };
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
    expect(denial(node, { role: 'viewer' })).toBeInstanceOf(AuthorizationError);
    expect(denial(node, { allowNodes: true })).toBeUndefined();
  });

  it('requires the role or a higher one of users, and roles do not apply to allowed nodes', () => {
    expect(denial(orgAdmin, { role: 'orgAdmin' })).toBeUndefined();
    expect(denial(orgAdmin, { role: 'operator' })).toBeUndefined();
    expect(denial(user, { role: 'orgAdmin' })).toMatchObject({
      code: AuthErrorCode.Forbidden,
      message: 'role operator may not call this route; it needs orgAdmin or higher',
    });
    expect(denial(user, { role: 'operator' })).toBeUndefined();
    expect(denial(viewer, { role: 'viewer' })).toBeUndefined();
    expect(denial(viewer, { role: 'operator' })).toMatchObject({
      code: AuthErrorCode.Forbidden,
      message: 'role viewer may not call this route; it needs operator or higher',
    });
    expect(denial(node, { role: 'orgAdmin', allowNodes: true })).toBeUndefined();
  });

  it('lets a hub admin through any role requirement', () => {
    expect(denial(hubAdmin, { role: 'orgAdmin' })).toBeUndefined();
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
    expect(denial(hubAdmin, { org: 'acme', role: 'orgAdmin' })).toBeUndefined();
  });
});
