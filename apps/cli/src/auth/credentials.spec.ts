import { readCliEnv } from '../cli-env';
import {
  authorizationHeader,
  type FixedCredentials,
  normalizeExchangeUrl,
  resolveExchangeUrl,
  resolveLogin,
} from './credentials';

const NOW = new Date('2030-01-01T12:00:00Z');
const EXCHANGE = 'http://exchange.example:8080';
const stored = {
  exchangeUrl: EXCHANGE,
  org: 'acme',
  username: 'ada',
  accessToken: 'stored-token',
  expiresAt: '2030-01-01T12:15:00Z',
};
const env = (values: Record<string, string> = {}) => readCliEnv({ CAREEN_CONFIG_DIR: '/config', ...values });

describe('exchange URL', () => {
  it('drops trailing slashes and refuses what is not an http(s) URL', () => {
    expect(normalizeExchangeUrl('http://localhost:8080/')).toBe('http://localhost:8080');
    expect(normalizeExchangeUrl('https://hub.example/careen/')).toBe('https://hub.example/careen');
    expect(() => normalizeExchangeUrl('localhost:8080')).toThrow('invalid exchange URL "localhost:8080"');
    expect(() => normalizeExchangeUrl('not a url')).toThrow('invalid exchange URL');
    expect(() => normalizeExchangeUrl('http://root:pw@localhost')).toThrow('credentials');
  });

  it('prefers --exchange, then CAREEN_EXCHANGE_URL, then the stored login, then the default', () => {
    const withEnv = env({ CAREEN_EXCHANGE_URL: 'http://from-env:1' });
    expect(resolveExchangeUrl('http://flag:1', withEnv, stored)).toBe('http://flag:1');
    expect(resolveExchangeUrl(undefined, withEnv, stored)).toBe('http://from-env:1');
    expect(resolveExchangeUrl(undefined, env(), stored)).toBe(EXCHANGE);
    expect(resolveExchangeUrl(undefined, env(), {})).toBe('http://127.0.0.1:8080');
  });
});

describe('credentials', () => {
  it('uses the stored token while it is valid', () => {
    const login = resolveLogin(env(), stored, EXCHANGE, NOW);
    expect(login.credentials).toEqual({ scheme: 'bearer', token: 'stored-token' });
    expect(login.org).toBe('acme');
    expect(login.refusalHint).toContain('careen login');
  });

  it('says when the stored login expired and how to log in again', () => {
    expect(() => resolveLogin(env(), stored, EXCHANGE, new Date('2030-01-01T12:15:00Z'))).toThrow(
      `your login as acme/ada to ${EXCHANGE} expired at 2030-01-01T12:15:00Z: run "careen login" to log in again`,
    );
  });

  it('renews a login with a refresh token until the login ends, whatever its access token', () => {
    const renewable = {
      ...stored,
      expiresAt: '2030-01-01T11:00:00Z',
      refreshToken: 'refresh',
      refreshExpiresAt: '2030-01-02T00:00:00Z',
    };
    expect(resolveLogin(env(), renewable, EXCHANGE, NOW).credentials).toEqual({
      scheme: 'login',
      stored: renewable,
    });
    expect(() => resolveLogin(env(), renewable, EXCHANGE, new Date('2030-01-02T00:00:00Z'))).toThrow(
      `your login as acme/ada to ${EXCHANGE} expired at 2030-01-02T00:00:00Z: run "careen login" to log in again`,
    );
  });

  it('uses CAREEN_API_KEY before Basic credentials and the stored login, after CAREEN_TOKEN', () => {
    const key = `ck_0123456789abcdef_${'k'.repeat(43)}`;
    const withKey = env({
      CAREEN_API_KEY: key,
      CAREEN_ORG: 'acme',
      CAREEN_USER: 'ada',
      CAREEN_PASSWORD: 'pw',
    });
    const login = resolveLogin(withKey, stored, EXCHANGE, NOW);
    expect(login.credentials).toEqual({ scheme: 'bearer', token: key });
    expect(login.org).toBe('acme');
    expect(login.refusalHint).toContain('CAREEN_API_KEY was refused');
    expect(
      resolveLogin(env({ CAREEN_API_KEY: key, CAREEN_TOKEN: 't' }), {}, EXCHANGE, NOW).credentials,
    ).toEqual({
      scheme: 'bearer',
      token: 't',
    });
  });

  it('says how to log in when there is no login', () => {
    expect(() => resolveLogin(env(), {}, EXCHANGE, NOW)).toThrow('not logged in: run "careen login"');
    expect(() => resolveLogin(env(), { ...stored, accessToken: undefined }, EXCHANGE, NOW)).toThrow(
      'not logged in',
    );
  });

  it('does not send the stored token to another exchange', () => {
    expect(() => resolveLogin(env(), stored, 'http://other:8080', NOW)).toThrow(
      `not logged in to http://other:8080 (the stored login is for ${EXCHANGE}): run "careen login --exchange http://other:8080"`,
    );
  });

  it('prefers CAREEN_TOKEN, then CAREEN_USER and CAREEN_PASSWORD, over the stored login', () => {
    expect(
      resolveLogin(env({ CAREEN_TOKEN: 'env-token', CAREEN_USER: 'bob' }), stored, EXCHANGE, NOW).credentials,
    ).toEqual({
      scheme: 'bearer',
      token: 'env-token',
    });
    const basic = resolveLogin(
      env({ CAREEN_ORG: 'beta', CAREEN_USER: 'bob', CAREEN_PASSWORD: 'pw:with:colons' }),
      stored,
      EXCHANGE,
      NOW,
    );
    expect(basic.credentials).toEqual({
      scheme: 'basic',
      org: 'beta',
      username: 'bob',
      password: 'pw:with:colons',
    });
    expect(basic.org).toBe('beta');
    expect(authorizationHeader(basic.credentials as FixedCredentials)).toBe(
      `Basic ${Buffer.from('beta/bob:pw:with:colons').toString('base64')}`,
    );
  });

  it('needs the org for Basic credentials', () => {
    expect(() => resolveLogin(env({ CAREEN_USER: 'bob', CAREEN_PASSWORD: 'pw' }), {}, EXCHANGE, NOW)).toThrow(
      'CAREEN_USER and CAREEN_PASSWORD need CAREEN_ORG too',
    );
  });

  it('keeps the stored login when CAREEN_USER is set without CAREEN_PASSWORD (a default for login only)', () => {
    const login = resolveLogin(env({ CAREEN_USER: 'bob', CAREEN_ORG: 'beta' }), stored, EXCHANGE, NOW);
    expect(login.credentials).toEqual({ scheme: 'bearer', token: 'stored-token' });
  });

  it('treats empty variables as unset', () => {
    expect(resolveLogin(env({ CAREEN_TOKEN: '' }), stored, EXCHANGE, NOW).credentials).toEqual({
      scheme: 'bearer',
      token: 'stored-token',
    });
  });
});
