import { Public } from '@careen/auth';
import { Body, Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { SigningKeyStore } from '../keys/signing-key.store';
import { TokenRequestDto, type TokenResponse } from './dto/token-request.dto';
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

  /**
   * Trades user or node credentials for a short-lived JWT that every Careen service verifies
   * locally. A token outlives the node it was issued to until it expires.
   */
  @Post('token')
  // The credentials come in the body: no login is needed to ask.
  @ApiOperation({ summary: 'Trade user or node credentials for a short-lived token', security: [] })
  @HttpCode(200)
  async token(@Body() body: TokenRequestDto): Promise<TokenResponse> {
    const principal =
      body.node !== undefined && body.token !== undefined
        ? await this.credentials.authenticateNode(body.org, body.node, body.token)
        : await this.credentials.authenticateUser(body.org, body.username ?? '', body.password ?? '');
    return this.tokens.issue(principal);
  }

  @Get('jwks')
  @ApiOperation({ summary: "Read the exchange's token verification keys (JWKS)", security: [] })
  @Header('Cache-Control', 'public, max-age=300')
  jwks() {
    return this.keys.jwks();
  }
}
