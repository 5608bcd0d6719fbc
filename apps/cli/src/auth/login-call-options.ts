/**
 * How the calls of one command carry its credentials: fixed ones as the same header on every
 * request, the stored login as an access token renewed while the command runs.
 */
import { type Exchange } from '@careen/api-client';
import { type ConfigStore } from '../config/config-store';
import { type CallOptions, serviceCalls } from '../http/service-calls';
import { authorizationHeader, type ResolvedLogin } from './credentials';
import { StoredLoginBearer } from './stored-login-bearer';

export function loginCallOptions(login: ResolvedLogin, store: ConfigStore, now: () => Date): CallOptions {
  const { credentials, refusalHint } = login;
  if (credentials.scheme !== 'login') return { authorization: authorizationHeader(credentials), refusalHint };
  const exchange = serviceCalls<Exchange.paths>(credentials.stored.exchangeUrl);
  const renew = (refreshToken: string) =>
    exchange((api) => api.POST('/v1/auth/token/refresh', { body: { refreshToken } }));
  return { bearer: new StoredLoginBearer(credentials, store, renew, now), refusalHint };
}
