/** Injection tokens for the two ports the auth guard depends on. */
export const TOKEN_VERIFIER = Symbol('TOKEN_VERIFIER');
export const BASIC_AUTHENTICATOR = Symbol('BASIC_AUTHENTICATOR');
