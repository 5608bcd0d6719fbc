/** The issuer and audience of every access token the exchange signs and every service checks. */
export const CAREEN_TOKEN_ISSUER = 'careen-exchange';
export const CAREEN_TOKEN_AUDIENCE = 'careen';
