import { CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, TokenIssuer, type Principal } from '@careen/auth';
import { SERVICE_CONFIG } from '@careen/service';
import { Inject, Injectable } from '@nestjs/common';
import { type ExchangeConfig } from '../exchange.config';
import { SigningKeyStore } from '../keys/signing-key.store';
import { type TokenResponse } from './dto/token.response';

/** Issues short-lived access tokens signed with the current key. */
@Injectable()
export class TokenService {
  constructor(
    private readonly keys: SigningKeyStore,
    @Inject(SERVICE_CONFIG) private readonly config: ExchangeConfig,
  ) {}

  issue(principal: Principal): Promise<TokenResponse> {
    return new TokenIssuer(this.keys.current(), {
      issuer: CAREEN_TOKEN_ISSUER,
      audience: CAREEN_TOKEN_AUDIENCE,
      ttlSeconds: this.config.CAREEN_TOKEN_TTL_SECONDS,
    }).issue(principal);
  }
}
