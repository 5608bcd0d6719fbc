import { Public } from '@careen/auth';
import { createHash } from 'node:crypto';
import { type FastifyReply } from 'fastify';
import { type JSONWebKeySet } from 'jose';
import { Body, Controller, Get, Header, Headers, HttpCode, Post, Res } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { SigningKeyStore } from '../keys/signing-key.store';
import { RefreshTokenRequestDto } from './dto/refresh-token-request.dto';
import { TokenRequestDto } from './dto/token-request.dto';
import { JwksResponse, TokenResponse } from './dto/token.response';
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
   * locally, and a user's for a refresh token too. A token outlives the node it was issued to
   * until it expires.
   */
  @Post('token')
  // The credentials come in the body: no login is needed to ask.
  @ApiOperation({ summary: 'Trade user or node credentials for a short-lived token', security: [] })
  @ApiOkResponse({ type: TokenResponse })
  @ApiUnauthorizedResponse({
    description: 'no such user or node, or a wrong password or token: INVALID_CREDENTIALS',
  })
  @ApiForbiddenResponse({
    description: "the org's passwords are switched off (single sign-on only): PASSWORD_LOGIN_DISABLED",
  })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  async token(@Body() body: TokenRequestDto): Promise<TokenResponse> {
    const principal =
      body.node !== undefined && body.token !== undefined
        ? await this.credentials.authenticateNode(body.org, body.node, body.token)
        : await this.credentials.authenticateUser(body.org, body.username ?? '', body.password ?? '');
    return this.tokens.issue(principal);
  }

  /**
   * Trades a user's refresh token for a new access token and the next refresh token: the one
   * sent is used up. Clients renew ahead of the access token's expiry, so a login lasts hours
   * without the password being kept.
   */
  @Post('token/refresh')
  // The refresh token is the credential: no login is needed to ask.
  @ApiOperation({ summary: 'Renew an access token with a refresh token', security: [] })
  @ApiOkResponse({ type: TokenResponse })
  @ApiUnauthorizedResponse({
    description:
      'the refresh token is unknown, already used or revoked (INVALID_TOKEN), or its login expired (TOKEN_EXPIRED), or the identity provider refused the person (SSO_REFUSED): log in again',
  })
  @ApiForbiddenResponse({
    description:
      "the login ended: the org's passwords were switched off (PASSWORD_LOGIN_DISABLED), or the person is in no mapped group any more (SSO_NO_ROLE)",
  })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  refresh(@Body() body: RefreshTokenRequestDto): Promise<TokenResponse> {
    return this.tokens.refresh(body.refreshToken);
  }

  /**
   * Ends the login a refresh token belongs to (logging out): no token of it renews again. The
   * access tokens already issued work until they expire. Answers 204 for a token it does not
   * know too, as RFC 7009 asks, so the answer tells nothing of which tokens exist.
   */
  @Post('token/revoke')
  @ApiOperation({ summary: 'End the login of a refresh token (log out)', security: [] })
  @ApiNoContentResponse({ description: 'the login is ended, or the token named none' })
  @HttpCode(204)
  async revoke(@Body() body: RefreshTokenRequestDto): Promise<void> {
    await this.tokens.revoke(body.refreshToken);
  }

  @Get('jwks')
  @ApiOperation({ summary: "Read the exchange's token verification keys (JWKS)", security: [] })
  @ApiOkResponse({
    type: JwksResponse,
    headers: {
      'Cache-Control': { description: 'public, max-age=300', schema: { type: 'string' } },
      ETag: { description: 'send it back as If-None-Match to revalidate', schema: { type: 'string' } },
    },
  })
  // Caches are invited to keep the set, and to revalidate it with its ETag.
  @ApiResponse({ status: 304, description: 'the key set is the one whose ETag came as If-None-Match' })
  @Header('Cache-Control', 'public, max-age=300')
  jwks(
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: FastifyReply,
  ): JSONWebKeySet | undefined {
    const jwks = this.keys.jwks();
    const etag = `"${createHash('sha256').update(JSON.stringify(jwks)).digest('base64url')}"`;
    void response.header('ETag', etag);
    if (!matchesEtag(ifNoneMatch, etag)) return jwks;
    void response.status(304);
    return undefined;
  }
}

/** Whether an If-None-Match list names the ETag (compared weakly, as RFC 9110 asks) or is `*`. */
function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const strong = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || strong(tag) === strong(etag));
}
