import { CurrentPrincipal, NeedsRole, OrgScoped, type Principal } from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { IdentityProviderDto } from './dto/identity-provider.dto';
import { IdentityProviderResponse } from './dto/identity-provider.response';
import { IdentityProvidersService } from './identity-providers.service';

@ApiTags('single sign-on')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@Controller('v1/orgs/:org/identity-provider')
export class IdentityProviderController {
  constructor(private readonly providers: IdentityProvidersService) {}

  /**
   * Sets the org's OpenID provider (the hub's is the `root` org's), trying its discovery first,
   * and whether passwords stay allowed. Sign-ins with the provider take effect at once; users
   * signed in keep their role until their next renewal.
   */
  @Put()
  @ApiOperation({ summary: "Set the org's OpenID provider and role mapping" })
  @ApiOkResponse({ type: IdentityProviderResponse })
  @ApiBadRequestResponse({
    description:
      'the provider could not be discovered or answered wrongly (SSO_ISSUER_UNUSABLE), or hubAdmin mapped outside root (SSO_HUB_ROLE_OUTSIDE_HUB)',
  })
  @NeedsRole('orgAdmin')
  put(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Body() body: IdentityProviderDto,
  ): Promise<IdentityProviderResponse> {
    return this.providers.put(actor, org, body);
  }

  @Get()
  @ApiOperation({ summary: "Read the org's OpenID provider" })
  @ApiOkResponse({ type: IdentityProviderResponse })
  @ApiNotFoundResponse({ description: 'the org signs in with passwords only: SSO_NOT_CONFIGURED' })
  @NeedsRole('orgAdmin')
  get(@Param('org') org: string): Promise<IdentityProviderResponse> {
    return this.providers.get(org);
  }

  /** Ends single sign-on for the org and allows passwords again; SSO users' logins end at their next renewal. */
  @Delete()
  @ApiOperation({ summary: "Remove the org's OpenID provider (passwords are allowed again)" })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: 'there was none: SSO_NOT_CONFIGURED' })
  @NeedsRole('orgAdmin')
  @HttpCode(204)
  remove(@Param('org') org: string): Promise<void> {
    return this.providers.remove(org);
  }
}
