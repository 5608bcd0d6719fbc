/** Injection tokens for the ports the auth guard depends on. */
export const TOKEN_VERIFIER = Symbol('TOKEN_VERIFIER');
export const BASIC_AUTHENTICATOR = Symbol('BASIC_AUTHENTICATOR');
export const KEY_AUTHENTICATOR = Symbol('KEY_AUTHENTICATOR');
