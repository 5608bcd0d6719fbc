/**
 * An org's single sign-on set up, read and removed by its admins. A new configuration is tried
 * against the provider before it is kept (its metadata discovered), so a wrong issuer is an
 * answer now rather than a failed sign-in later. Switching passwords off needs a provider;
 * removing the provider switches them back on, so an org is never left with no way in.
 */
import { principalId, type Principal } from '@careen/auth';
import { DomainError } from '@careen/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { ChangeRecorder } from '../changes/change-recorder';
import { OrgsService } from '../orgs/orgs.service';
import { ROOT_ORG } from '../users/user-role.policy';
import {
  DEFAULT_GROUPS_CLAIM,
  DEFAULT_SCOPES,
  DEFAULT_USERNAME_CLAIM,
  type IdentityProviderDto,
} from './dto/identity-provider.dto';
import { type IdentityProviderResponse } from './dto/identity-provider.response';
import { IdentityProviderStore, type ProviderSettings } from './identity-provider.store';
import { OpenIdProviders } from './openid-providers';
import { hubRoleOutsideHub, issuerUnusable, ssoNotConfigured } from './sso.errors';

@Injectable()
export class IdentityProvidersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: IdentityProviderStore,
    private readonly providers: OpenIdProviders,
    private readonly orgs: OrgsService,
    private readonly changes: ChangeRecorder,
  ) {}

  async put(actor: Principal, org: string, input: IdentityProviderDto): Promise<IdentityProviderResponse> {
    if (org !== ROOT_ORG && input.roleMappings.some((mapping) => mapping.role === 'hubAdmin')) {
      throw hubRoleOutsideHub(org);
    }
    const settings: ProviderSettings = {
      org,
      issuer: input.issuer,
      clientId: input.clientId,
      clientSecret: input.clientSecret ?? null,
      scopes: input.scopes ?? DEFAULT_SCOPES,
      groupsClaim: input.groupsClaim ?? DEFAULT_GROUPS_CLAIM,
      usernameClaim: input.usernameClaim ?? DEFAULT_USERNAME_CLAIM,
      roleMappings: input.roleMappings.map(({ group, role }) => ({ group, role })),
    };
    await this.providers.check(settings).catch((error: unknown) => {
      throw error instanceof DomainError ? issuerUnusable(input.issuer, error.message) : error;
    });
    return this.dataSource.transaction(async (manager) => {
      await this.orgs.require(manager, org);
      const operation = await this.store.put(manager, settings, principalId(actor));
      await this.recordProvider(manager, org, operation, settings.issuer);
      await this.setPasswordLogin(manager, org, input.passwordLogin ?? true);
      return (await this.store.answer(manager, org))!;
    });
  }

  async get(org: string): Promise<IdentityProviderResponse> {
    const answer = await this.store.answer(this.dataSource.manager, org);
    if (!answer) throw ssoNotConfigured(org);
    return answer;
  }

  async remove(org: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const settings = await this.store.settings(manager, org);
      if (!settings || !(await this.store.remove(manager, org))) throw ssoNotConfigured(org);
      await this.recordProvider(manager, org, 'deleted', settings.issuer);
      await this.setPasswordLogin(manager, org, true);
    });
  }

  private async setPasswordLogin(manager: EntityManager, org: string, allowed: boolean): Promise<void> {
    if (!(await this.store.setPasswordLogin(manager, org, allowed))) return;
    await this.changes.record(manager, {
      org,
      resource: 'org',
      resourceId: org,
      operation: 'updated',
      data: { id: org },
    });
  }

  private recordProvider(
    manager: EntityManager,
    org: string,
    operation: 'created' | 'updated' | 'deleted',
    issuer: string,
  ): Promise<void> {
    return this.changes.record(manager, {
      org,
      resource: 'identityProvider',
      resourceId: org,
      operation,
      data: { issuer },
    });
  }
}
