import { TokenIssuer, type Principal } from '@careen/auth';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { type ExchangeConfig } from '../exchange.config';
import { SigningKeyStore } from '../keys/signing-key.store';
import { type TokenResponse } from './dto/token-request.dto';

export const TOKEN_ISSUER = 'careen-exchange';
export const TOKEN_AUDIENCE = 'careen';

/** Issues short-lived access tokens signed with the current key. */
@Injectable()
export class TokenService {
  constructor(
    private readonly keys: SigningKeyStore,
    @Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig,
  ) {}

  issue(principal: Principal): Promise<TokenResponse> {
    return new TokenIssuer(this.keys.current(), {
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      ttlSeconds: this.config.CAREEN_TOKEN_TTL_SECONDS,
    }).issue(principal);
  }
}
