import { CurrentPrincipal, NeedsRole, OrgScoped, type Principal } from '@careen/auth';
import { IdentifierPipe } from '@careen/service';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CreateApiKeyDto, CreateServiceAccountDto, RotateApiKeyDto } from './dto/service-account.dto';
import {
  ApiKeyResponse,
  NewApiKeyResponse,
  RotatedApiKeyResponse,
  ServiceAccountListResponse,
  ServiceAccountResponse,
} from './dto/service-account.response';
import { ServiceAccountsService } from './service-accounts.service';

/** An org's admin tools and pipelines, and their keys: for org admins only, never for a key. */
@ApiTags('service-accounts')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@NeedsRole('orgAdmin')
@Controller('v1/orgs/:org/service-accounts')
export class ServiceAccountsController {
  constructor(private readonly accounts: ServiceAccountsService) {}

  @Post()
  @ApiOperation({ summary: 'Make a service account' })
  @ApiCreatedResponse({ type: ServiceAccountResponse })
  @ApiConflictResponse({ description: 'one of that name exists: SERVICE_ACCOUNT_EXISTS' })
  create(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Body() body: CreateServiceAccountDto,
  ): Promise<ServiceAccountResponse> {
    return this.accounts.create(actor, org, body);
  }

  @Get()
  @ApiOperation({ summary: "List the org's service accounts with their keys (never a secret)" })
  @ApiOkResponse({ type: ServiceAccountListResponse })
  list(@Param('org') org: string): Promise<ServiceAccountListResponse> {
    return this.accounts.list(org);
  }

  @Get(':name')
  @ApiOperation({ summary: 'Read a service account with its keys' })
  @ApiOkResponse({ type: ServiceAccountResponse })
  @ApiNotFoundResponse({ description: 'SERVICE_ACCOUNT_NOT_FOUND' })
  get(
    @Param('org') org: string,
    @Param('name', IdentifierPipe) name: string,
  ): Promise<ServiceAccountResponse> {
    return this.accounts.get(org, name);
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a service account; its keys stop working at once' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiNotFoundResponse({ description: 'SERVICE_ACCOUNT_NOT_FOUND' })
  remove(@Param('org') org: string, @Param('name', IdentifierPipe) name: string): Promise<void> {
    return this.accounts.remove(org, name);
  }

  @Post(':name/keys')
  @ApiOperation({ summary: 'Make a key with scopes; the answer is the only time it is shown' })
  @ApiCreatedResponse({ type: NewApiKeyResponse })
  @ApiNotFoundResponse({ description: 'SERVICE_ACCOUNT_NOT_FOUND' })
  createKey(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name', IdentifierPipe) name: string,
    @Body() body: CreateApiKeyDto,
  ): Promise<NewApiKeyResponse> {
    return this.accounts.createKey(actor, org, name, body);
  }

  @Post(':name/keys/:key/rotate')
  @ApiOperation({
    summary: 'Replace a key: a new one with its scopes, the previous one ending after the overlap',
  })
  @ApiCreatedResponse({ type: RotatedApiKeyResponse })
  @ApiNotFoundResponse({ description: 'SERVICE_ACCOUNT_NOT_FOUND or API_KEY_NOT_FOUND' })
  @ApiConflictResponse({ description: 'the key is revoked or expired: API_KEY_ENDED' })
  rotateKey(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('name', IdentifierPipe) name: string,
    @Param('key', IdentifierPipe) key: string,
    @Body() body: RotateApiKeyDto,
  ): Promise<RotatedApiKeyResponse> {
    return this.accounts.rotateKey(actor, org, name, key, body);
  }

  @Delete(':name/keys/:key')
  @ApiOperation({ summary: 'Revoke a key: refused from now on by every service' })
  @ApiOkResponse({ type: ApiKeyResponse })
  @ApiNotFoundResponse({ description: 'SERVICE_ACCOUNT_NOT_FOUND or API_KEY_NOT_FOUND' })
  revokeKey(
    @Param('org') org: string,
    @Param('name', IdentifierPipe) name: string,
    @Param('key', IdentifierPipe) key: string,
  ): Promise<ApiKeyResponse> {
    return this.accounts.revokeKey(org, name, key);
  }
}
