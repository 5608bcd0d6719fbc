import { Public } from '@careen/auth';
import { Body, Controller, Get, Header, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { TokenResponse } from '../auth/dto/token.response';
import { SsoAuthorizeRequestDto, SsoCodeRequestDto, SsoDeviceTokenRequestDto } from './dto/sso-sign-in.dto';
import { SsoAuthorizeResponse, SsoDeviceResponse, SsoOptionsResponse } from './dto/sso.response';
import { SsoSignInService } from './sso-sign-in.service';

const SIGN_IN_REFUSALS = {
  unauthorized: 'the provider refused the code, the device code or the identity token: SSO_REFUSED',
  forbidden:
    'signed in, but in no group mapped to a role (SSO_NO_ROLE), or the username claim is no Careen name (SSO_BAD_USERNAME)',
  unavailable: 'the provider could not be reached: SSO_PROVIDER_UNAVAILABLE',
  conflict: "a local user with a password has the person's name: SSO_LOCAL_USER_EXISTS",
};

/** Signing in through an org's OpenID provider: each route is the credential's own exchange, so none needs a login. */
@ApiTags('single sign-on')
@Public()
@Controller('v1/auth/sso/:org')
export class SsoController {
  constructor(private readonly signIn: SsoSignInService) {}

  @Get()
  @ApiOperation({ summary: 'How the users of an org sign in', security: [] })
  @ApiOkResponse({ type: SsoOptionsResponse })
  options(@Param('org') org: string): Promise<SsoOptionsResponse> {
    return this.signIn.options(org);
  }

  /** The console's first step: the provider's authorization URL for its PKCE challenge. */
  @Post('authorize')
  @ApiOperation({ summary: 'Start a browser sign-in (authorization code with PKCE)', security: [] })
  @ApiOkResponse({ type: SsoAuthorizeResponse })
  @ApiNotFoundResponse({ description: 'the org has no provider: SSO_NOT_CONFIGURED' })
  @ApiServiceUnavailableResponse({ description: SIGN_IN_REFUSALS.unavailable })
  @HttpCode(200)
  authorize(@Param('org') org: string, @Body() body: SsoAuthorizeRequestDto): Promise<SsoAuthorizeResponse> {
    return this.signIn.authorize(org, body);
  }

  /** The console's second step: the code the provider sent back, redeemed for a Careen login. */
  @Post('token')
  @ApiOperation({ summary: "Finish a browser sign-in: trade the provider's code for a token", security: [] })
  @ApiOkResponse({ type: TokenResponse })
  @ApiNotFoundResponse({ description: 'the org has no provider: SSO_NOT_CONFIGURED' })
  @ApiUnauthorizedResponse({ description: SIGN_IN_REFUSALS.unauthorized })
  @ApiForbiddenResponse({ description: SIGN_IN_REFUSALS.forbidden })
  @ApiConflictResponse({ description: SIGN_IN_REFUSALS.conflict })
  @ApiServiceUnavailableResponse({ description: SIGN_IN_REFUSALS.unavailable })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  code(@Param('org') org: string, @Body() body: SsoCodeRequestDto): Promise<TokenResponse> {
    return this.signIn.codeSignIn(org, body);
  }

  /** The CLI's first step: a code for the person to approve at the provider, from any browser. */
  @Post('device')
  @ApiOperation({ summary: 'Start a device sign-in (RFC 8628), as `careen login --sso` does', security: [] })
  @ApiOkResponse({ type: SsoDeviceResponse })
  @ApiNotFoundResponse({ description: 'the org has no provider: SSO_NOT_CONFIGURED' })
  @ApiServiceUnavailableResponse({ description: SIGN_IN_REFUSALS.unavailable })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  device(@Param('org') org: string): Promise<SsoDeviceResponse> {
    return this.signIn.startDevice(org);
  }

  /** Asked every `interval` seconds until the person has approved the code (or refused it, or it ended). */
  @Post('device/token')
  @ApiOperation({ summary: 'Finish a device sign-in once it is approved', security: [] })
  @ApiOkResponse({ type: TokenResponse })
  @ApiBadRequestResponse({
    description:
      'not approved yet (AUTHORIZATION_PENDING) or asked too often (SLOW_DOWN): ask again after details.interval',
  })
  @ApiNotFoundResponse({ description: 'the org has no provider: SSO_NOT_CONFIGURED' })
  @ApiUnauthorizedResponse({
    description: `${SIGN_IN_REFUSALS.unauthorized} (also a refused or ended device code)`,
  })
  @ApiForbiddenResponse({ description: SIGN_IN_REFUSALS.forbidden })
  @ApiConflictResponse({ description: SIGN_IN_REFUSALS.conflict })
  @ApiServiceUnavailableResponse({ description: SIGN_IN_REFUSALS.unavailable })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  deviceToken(@Param('org') org: string, @Body() body: SsoDeviceTokenRequestDto): Promise<TokenResponse> {
    return this.signIn.deviceSignIn(org, body.deviceCode);
  }
}
