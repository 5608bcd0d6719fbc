import { DomainError } from '@careen/contracts';
import { groupsOf, identityFromClaims, roleOf } from './sso-identity.rules';
import { SsoErrorCode } from './sso.errors';

const settings = {
  org: 'acme',
  groupsClaim: 'groups',
  usernameClaim: 'preferred_username',
  roleMappings: [
    { group: 'noc', role: 'viewer' as const },
    { group: 'ops', role: 'operator' as const },
    { group: 'platform', role: 'orgAdmin' as const },
  ],
};

function refusal(claims: Record<string, unknown>): DomainError {
  try {
    identityFromClaims(settings, claims);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the claims were accepted');
}

describe('who a signed-in person is in Careen', () => {
  it('takes the most powerful role any of their groups is mapped to', () => {
    expect(
      identityFromClaims(settings, { preferred_username: 'ada', groups: ['noc', 'platform', 'x'] }),
    ).toEqual({ username: 'ada', role: 'orgAdmin', groups: ['noc', 'platform', 'x'] });
    expect(roleOf(['ops', 'noc'], settings.roleMappings)).toBe('operator');
  });

  it('reads a single group written as a string, and ignores what is not a name', () => {
    expect(groupsOf('ops')).toEqual(['ops']);
    expect(groupsOf(['ops', 7, null])).toEqual(['ops']);
    expect(groupsOf({ ops: true })).toEqual([]);
  });

  it('refuses someone in no mapped group, naming the groups they are in', () => {
    const error = refusal({ preferred_username: 'bob', groups: ['sales'] });
    expect(error.code).toBe(SsoErrorCode.NoRole);
    expect(error.kind).toBe('forbidden');
    expect(error.message).toContain('sales');
    expect(refusal({ preferred_username: 'bob' }).message).toContain('none');
  });

  it.each([undefined, '', 'a/b', 'sa:x', 'x'.repeat(65), 42])('refuses the user name %p', (name) => {
    const error = refusal({ preferred_username: name, groups: ['ops'] });
    expect(error.code).toBe(SsoErrorCode.BadUsername);
    expect(error.message).toContain('preferred_username');
  });
});
