import { DomainError } from '@careen/contracts';

export enum SsoErrorCode {
  NotConfigured = 'SSO_NOT_CONFIGURED',
  ProviderUnavailable = 'SSO_PROVIDER_UNAVAILABLE',
  Refused = 'SSO_REFUSED',
  NoRole = 'SSO_NO_ROLE',
  BadUsername = 'SSO_BAD_USERNAME',
  LocalUserExists = 'SSO_LOCAL_USER_EXISTS',
  HubRoleOutsideHub = 'SSO_HUB_ROLE_OUTSIDE_HUB',
  PasswordLoginDisabled = 'PASSWORD_LOGIN_DISABLED',
  AuthorizationPending = 'AUTHORIZATION_PENDING',
  SlowDown = 'SLOW_DOWN',
  IssuerUnusable = 'SSO_ISSUER_UNUSABLE',
}

export const ssoNotConfigured = (org: string) =>
  new DomainError('not-found', SsoErrorCode.NotConfigured, `org "${org}" has no single sign-on configured`, {
    org,
  });

export const providerUnavailable = (issuer: string, cause: unknown) =>
  new DomainError(
    'unavailable',
    SsoErrorCode.ProviderUnavailable,
    `the identity provider ${issuer} could not be reached: ${(cause as { message?: unknown } | undefined)?.message ?? String(cause)}`,
    { issuer },
  );

/** The provider said no (a wrong or used code, a denied or expired device code, an ended login). */
export const ssoRefused = (issuer: string, reason: string) =>
  new DomainError(
    'unauthenticated',
    SsoErrorCode.Refused,
    `the identity provider ${issuer} refused: ${reason}`,
    {
      issuer,
    },
  );

export const noRole = (org: string, username: string, groupsClaim: string, groups: readonly string[]) =>
  new DomainError(
    'forbidden',
    SsoErrorCode.NoRole,
    `${username} is in none of the groups that give a role in org "${org}" (their "${groupsClaim}": ${groups.length ? groups.join(', ') : 'none'})`,
    { org, username, groups: [...groups] },
  );

export const badUsername = (claim: string, value: unknown) =>
  new DomainError(
    'forbidden',
    SsoErrorCode.BadUsername,
    `the identity token's "${claim}" claim (${JSON.stringify(value) ?? 'missing'}) is no Careen user name: 1–64 characters, no "/" or ":"`,
    { claim },
  );

export const localUserExists = (org: string, username: string) =>
  new DomainError(
    'conflict',
    SsoErrorCode.LocalUserExists,
    `org "${org}" has a local user "${username}" with a password: remove it before ${username} signs in through single sign-on`,
    { org, username },
  );

export const hubRoleOutsideHub = (org: string) =>
  new DomainError(
    'invalid',
    SsoErrorCode.HubRoleOutsideHub,
    `roleMappings: hubAdmin can be given only by the hub's own provider (org "root"), not by org "${org}"'s`,
    { org },
  );

export const passwordLoginDisabled = (org: string) =>
  new DomainError(
    'forbidden',
    SsoErrorCode.PasswordLoginDisabled,
    `password sign-in is switched off for org "${org}": sign in through single sign-on (careen login --sso)`,
    { org },
  );

/** RFC 8628's answers while the person has not yet approved the device code. */
export const authorizationPending = (interval: number) =>
  new DomainError(
    'invalid',
    SsoErrorCode.AuthorizationPending,
    'the sign-in has not been approved yet: ask again after the interval',
    { interval },
  );

export const slowDown = (interval: number) =>
  new DomainError('invalid', SsoErrorCode.SlowDown, 'asked too often: ask again after the longer interval', {
    interval,
  });

export const issuerUnusable = (issuer: string, reason: string) =>
  new DomainError('invalid', SsoErrorCode.IssuerUnusable, `issuer ${issuer} cannot be used: ${reason}`, {
    issuer,
  });
