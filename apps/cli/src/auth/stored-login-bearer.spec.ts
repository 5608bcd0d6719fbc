import { type StoredConfig } from '../config/config-store';
import { ExchangeRefusal } from '../http/exchange-errors';
import { renewalTime, StoredLoginBearer, type TokenAnswer } from './stored-login-bearer';

const EXCHANGE = 'http://exchange.example:8080';

/** A JWT-shaped token issued at `iat` for `ttl` seconds (only its claims are read). */
function jwt(iat: number, ttl: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'ES256' })}.${part({ iat, exp: iat + ttl })}.signature`;
}

describe('the stored login', () => {
  let clock: number;
  let file: StoredConfig;
  const store = {
    load: () => Promise.resolve({ ...file }),
    save: (config: StoredConfig) => Promise.resolve(void (file = { ...config })),
  };
  const now = () => new Date(clock);
  const at = (seconds: number) => new Date(seconds * 1000).toISOString();
  const login = () => ({ scheme: 'login' as const, stored: { ...file } as never });

  beforeEach(() => {
    clock = 1_000_000;
    file = {
      exchangeUrl: EXCHANGE,
      org: 'acme',
      username: 'ada',
      accessToken: jwt(1_000, 100),
      expiresAt: at(1_100),
      refreshToken: 'refresh-1',
      refreshExpiresAt: at(50_000),
    };
  });

  const answers = (...tokens: TokenAnswer[]) => {
    const used: string[] = [];
    const renew = jest.fn((refreshToken: string) => {
      used.push(refreshToken);
      const next = tokens.shift();
      return next ? Promise.resolve(next) : Promise.reject(new Error('no more answers'));
    });
    return { renew, used };
  };

  it('sends the stored access token until a fifth of its life is left', async () => {
    const { renew } = answers();
    const bearer = new StoredLoginBearer(login(), store, renew, now);
    clock = 1_079_000;
    await expect(bearer.bearer()).resolves.toBe(file.accessToken);
    expect(renew).not.toHaveBeenCalled();
  });

  it('renews it after that, once for requests asking together, and stores the next tokens at once', async () => {
    const next = {
      accessToken: jwt(1_080, 100),
      expiresIn: 100,
      refreshToken: 'refresh-2',
      refreshExpiresIn: 48_920,
    };
    const { renew, used } = answers(next);
    const bearer = new StoredLoginBearer(login(), store, renew, now);
    clock = 1_080_000;
    const [first, second] = await Promise.all([bearer.bearer(), bearer.bearer()]);
    expect([first, second]).toEqual([next.accessToken, next.accessToken]);
    expect(used).toEqual(['refresh-1']);
    expect(file).toMatchObject({
      accessToken: next.accessToken,
      expiresAt: '1970-01-01T00:19:40Z',
      refreshToken: 'refresh-2',
      refreshExpiresAt: '1970-01-01T13:53:20Z',
    });
  });

  it('goes on with the tokens another careen stored after renewing first', async () => {
    const { renew } = answers();
    renew.mockImplementationOnce(() => {
      file = { ...file, accessToken: jwt(1_090, 100), expiresAt: at(1_190), refreshToken: 'refresh-2' };
      return Promise.reject(new ExchangeRefusal(401, undefined, 'refresh token already used (401)'));
    });
    const bearer = new StoredLoginBearer(login(), store, renew, now);
    clock = 1_095_000;
    await expect(bearer.bearer()).resolves.toBe(jwt(1_090, 100));
  });

  it('tells the user to log in again when the exchange refuses to renew', async () => {
    const { renew } = answers();
    renew.mockRejectedValueOnce(
      new ExchangeRefusal(
        401,
        {
          statusCode: 401,
          error: 'Unauthorized',
          message: 'refresh token revoked: the login was ended',
          details: { code: 'INVALID_TOKEN' },
        },
        'refresh token revoked: the login was ended (401)',
      ),
    );
    const bearer = new StoredLoginBearer(login(), store, renew, now);
    bearer.invalidate();
    await expect(bearer.bearer()).rejects.toThrow(
      `the exchange ended your login as acme/ada to ${EXCHANGE} (refresh token revoked: the login was ended): run "careen login" to log in again`,
    );
  });

  it('stops when the user logged out meanwhile', async () => {
    const { renew } = answers();
    const bearer = new StoredLoginBearer(login(), store, renew, now);
    file = { exchangeUrl: EXCHANGE, org: 'acme', username: 'ada' };
    clock = 1_100_000;
    await expect(bearer.bearer()).rejects.toThrow(`you logged out of ${EXCHANGE} as acme/ada meanwhile`);
    expect(renew).not.toHaveBeenCalled();
  });

  it('renews a token whose lifetime it cannot read a minute before it expires', () => {
    expect(renewalTime('not.a.jwt', 1_000_000)).toBe(940_000);
    expect(renewalTime(jwt(900, 100), 1_000_000)).toBe(980_000);
  });
});
