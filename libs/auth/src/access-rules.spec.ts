import { assertAccess, assertProject, type AccessRequirements } from './access-rules';
import { AuthErrorCode, AuthorizationError } from './auth.errors';
import { type Principal } from './principal';

const hubAdmin: Principal = { kind: 'user', org: 'root', username: 'root', role: 'hubAdmin' };
const orgAdmin: Principal = { kind: 'user', org: 'acme', username: 'olga', role: 'orgAdmin' };
const user: Principal = { kind: 'user', org: 'acme', username: 'ulf', role: 'operator' };
const viewer: Principal = { kind: 'user', org: 'acme', username: 'vera', role: 'viewer' };
const node: Principal = { kind: 'node', org: 'acme', node: 'edge-1' };
const pipeline: Principal = {
  kind: 'service',
  org: 'acme',
  account: 'ci',
  key: '0123456789abcdef',
  scopes: ['rollouts:write', 'nodes:read'],
};

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

  it("lets a key through by its scopes: write for the resource's changes, read or write for its reads", () => {
    expect(denial(pipeline, { role: 'operator', resource: 'rollouts' })).toBeUndefined();
    expect(denial(pipeline, { role: 'orgAdmin', resource: 'rollouts' })).toBeUndefined();
    expect(denial(pipeline, { role: 'viewer', resource: 'rollouts' })).toBeUndefined();
    expect(denial(pipeline, { role: 'viewer', resource: 'nodes' })).toBeUndefined();
    expect(denial(pipeline, { role: 'operator', resource: 'nodes' })).toMatchObject({
      code: AuthErrorCode.Forbidden,
      message: 'key 0123456789abcdef of acme/sa:ci lacks the scope nodes:write',
    });
    expect(denial(pipeline, { role: 'viewer', resource: 'maintenance' })).toMatchObject({
      message: 'key 0123456789abcdef of acme/sa:ci lacks the scope maintenance:read',
    });
  });

  it('keeps keys out of routes without a resource, of hub routes and of other orgs; * opens to any key', () => {
    expect(denial(pipeline, { role: 'orgAdmin' })).toMatchObject({
      message: 'service accounts may not call this route',
    });
    expect(denial(pipeline, { role: 'hubAdmin', resource: 'rollouts' })).toMatchObject({
      message: 'service accounts may not call this route',
    });
    expect(denial(pipeline, { org: 'globex', role: 'viewer', resource: 'rollouts' })).toMatchObject({
      code: AuthErrorCode.WrongOrg,
    });
    expect(denial(pipeline, { role: 'viewer', resource: '*' })).toBeUndefined();
  });

  it('keeps a key limited to projects to routes of one project, and those to its projects', () => {
    const vnfm: Principal = { ...pipeline, scopes: ['maintenance:write'], projects: ['shop'] };
    expect(denial(vnfm, { role: 'operator', resource: 'maintenance' })).toMatchObject({
      message: expect.stringContaining('is limited to project(s) shop; this route acts beyond one project'),
    });
    expect(denial(vnfm, { role: 'operator', resource: 'maintenance', projectScoped: true })).toBeUndefined();
    expect(denial(vnfm, { role: 'viewer', resource: '*' })).toBeUndefined();
    expect(() => assertProject(vnfm, 'shop')).not.toThrow();
    expect(() => assertProject(vnfm, 'ledger')).toThrow('is limited to project(s) shop, not ledger');
    // Keys of the whole org and users are not limited by project.
    expect(() => assertProject(pipeline, 'ledger')).not.toThrow();
    expect(() => assertProject(user, 'ledger')).not.toThrow();
  });
});
