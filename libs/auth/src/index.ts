/**
 * @careen/auth: credentials, access tokens, org isolation and the Nest guard that applies them.
 */
export * from './principal';
export * from './scopes';
export * from './api-key';
export * from './auth.errors';
export * from './secret-hash';
export * from './verified-secrets';
export * from './expiring-cache';
export * from './signing-key';
export { ACCESS_TOKEN_TYPE } from './token-claims';
export * from './token-issuer';
export * from './token-verifier';
export * from './remote-key-set';
export * from './authorization-header';
export * from './authenticate-header';
export * from './basic-authenticator';
export * from './exchange-basic-authenticator';
export * from './exchange-key-authenticator';
export * from './access-rules';
export * from './nest/auth.tokens';
export * from './nest/authenticated-request';
export * from './nest/public.decorator';
export * from './nest/needs-role.decorator';
export * from './nest/resource.decorator';
export * from './nest/node-allowed.decorator';
export * from './nest/org-scoped.decorator';
export * from './nest/current-principal.decorator';
export * from './nest/auth-error.mapper';
export * from './nest/auth.guard';
export * from './nest/role-declarations';
export * from './nest/auth.module';
export * from './careen-token';
