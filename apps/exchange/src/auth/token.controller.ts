import { Public } from '@careen/auth';
import { Body, Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SigningKeyStore } from '../keys/signing-key.store';
import { TokenResponse, UserTokenRequestDto } from './dto/token-request.dto';
import { LocalBasicAuthenticator } from './local-basic.authenticator';
import { TokenService } from './token.service';

@ApiTags('auth')
@Public()
@Controller('v1/auth')
export class TokenController {
  constructor(
    private readonly credentials: LocalBasicAuthenticator,
    private readonly tokens: TokenService,
    private readonly keys: SigningKeyStore,
  ) {}

  /** Trades credentials for a short-lived JWT that every Careen service verifies locally. */
  @Post('token')
  @HttpCode(200)
  async token(@Body() body: UserTokenRequestDto): Promise<TokenResponse> {
    const principal = await this.credentials.authenticate(body.org, body.username, body.password);
    return this.tokens.issue(principal);
  }

  @Get('jwks')
  @Header('Cache-Control', 'public, max-age=300')
  jwks() {
    return this.keys.jwks();
  }
}
