import { AuthModule, CAREEN_TOKEN_AUDIENCE, CAREEN_TOKEN_ISSUER, JwksTokenVerifier } from '@careen/auth';
import { STREAMS } from '@careen/contracts';
import { OutboxMessageEntity } from '@careen/persistence';
import { PlatformModule } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type DynamicModule, Module } from '@nestjs/common';
import { AgentPackageEntity } from './agent-packages/agent-package.entity';
import { AgentPackagesModule } from './agent-packages/agent-packages.module';
import { AuthFeatureModule } from './auth/auth-feature.module';
import { ChangesModule } from './changes/changes.module';
import { LocalBasicAuthenticator } from './auth/local-basic.authenticator';
import { type ExchangeConfig } from './exchange.config';
import { SigningKeyStore } from './keys/signing-key.store';
import { SigningKeyEntity } from './keys/signing-key.entity';
import { InitExchange1763769600000 } from './migrations/1763769600000-init-exchange';
import { Nodes1763856000000 } from './migrations/1763856000000-nodes';
import { Services1763856100000 } from './migrations/1763856100000-services';
import { DeploymentPolicies1763856200000 } from './migrations/1763856200000-deployment-policies';
import { NodeEntity } from './nodes/node.entity';
import { NodesModule } from './nodes/nodes.module';
import { ServiceEntity } from './services/service.entity';
import { ServicesModule } from './services/services.module';
import { DeploymentPolicyEntity } from './deployment-policies/deployment-policy.entity';
import { DeploymentPoliciesModule } from './deployment-policies/deployment-policies.module';
import { DisruptionControlsModule } from './disruption-controls/disruption-controls.module';
import { HaGroupEntity } from './hagroups/ha-group.entity';
import { HaGroupsModule } from './hagroups/ha-groups.module';
import { HaGroups1763900000000 } from './migrations/1763900000000-ha-groups';
import { ManagementPolicies1763910000000 } from './migrations/1763910000000-management-policies';
import { ManagementPolicyEntity } from './management-policies/management-policy.entity';
import { ManagementPoliciesModule } from './management-policies/management-policies.module';
import { ManagementStatusEntity } from './management-status/management-status.entity';
import { ManagementStatusModule } from './management-status/management-status.module';
import { AgentPackages1763942400000 } from './migrations/1763942400000-agent-packages';
import { RolloutControl1764100100000 } from './migrations/1764100100000-rollout-control';
import { RolloutHistory1764100150000 } from './migrations/1764100150000-rollout-history';
import { RefreshTokens1764200000000 } from './migrations/1764200000000-refresh-tokens';
import { DisruptionControls1764600000000 } from './migrations/1764600000000-disruption-controls';
import { OperatorViewerRoles1764800000000 } from './migrations/1764800000000-operator-viewer-roles';
import { ServiceAccounts1764800100000 } from './migrations/1764800100000-service-accounts';
import { AuditLog1764800200000 } from './migrations/1764800200000-audit-log';
import { SingleSignOn1764900000000 } from './migrations/1764900000000-single-sign-on';
import { BusUsers1765000000000 } from './migrations/1765000000000-bus-users';
import { KeyProjects1765000100000 } from './migrations/1765000100000-key-projects';
import { OrgEntity } from './orgs/org.entity';
import { OrgsModule } from './orgs/orgs.module';
import { UserEntity } from './users/user.entity';
import { UsersModule } from './users/users.module';
import { LocalKeyAuthenticator } from './service-accounts/local-key.authenticator';
import { ServiceAccountsModule } from './service-accounts/service-accounts.module';
import { AuditModule } from './audit/audit.module';

export const EXCHANGE_ENTITIES = [
  OrgEntity,
  UserEntity,
  NodeEntity,
  ServiceEntity,
  DeploymentPolicyEntity,
  HaGroupEntity,
  ManagementPolicyEntity,
  ManagementStatusEntity,
  AgentPackageEntity,
  SigningKeyEntity,
  OutboxMessageEntity,
];
export const EXCHANGE_MIGRATIONS = [
  InitExchange1763769600000,
  Nodes1763856000000,
  Services1763856100000,
  DeploymentPolicies1763856200000,
  HaGroups1763900000000,
  ManagementPolicies1763910000000,
  AgentPackages1763942400000,
  RolloutControl1764100100000,
  RolloutHistory1764100150000,
  RefreshTokens1764200000000,
  DisruptionControls1764600000000,
  OperatorViewerRoles1764800000000,
  ServiceAccounts1764800100000,
  AuditLog1764800200000,
  SingleSignOn1764900000000,
  BusUsers1765000000000,
  KeyProjects1765000100000,
];

@Module({})
export class ExchangeModule {
  static forRoot(config: ExchangeConfig, logger: JsonLogger): DynamicModule {
    return {
      module: ExchangeModule,
      imports: [
        PlatformModule.forRoot({
          logger,
          service: 'exchange',
          config,
          entities: EXCHANGE_ENTITIES,
          migrations: EXCHANGE_MIGRATIONS,
          // The audit trail reads the other services' streams too.
          streams: [STREAMS.changes, STREAMS.deadLetters, STREAMS.audit, STREAMS.agbot, STREAMS.orchestrator],
          relayOutbox: true,
        }),
        AuthModule.forRoot({
          imports: [AuthFeatureModule, ServiceAccountsModule],
          verifier: {
            inject: [SigningKeyStore],
            useFactory: (keys: SigningKeyStore) =>
              JwksTokenVerifier.local(() => keys.jwks(), {
                issuer: CAREEN_TOKEN_ISSUER,
                audience: CAREEN_TOKEN_AUDIENCE,
              }),
          },
          basicAuthenticator: {
            inject: [LocalBasicAuthenticator],
            useFactory: (local: LocalBasicAuthenticator) => local,
          },
          keyAuthenticator: {
            inject: [LocalKeyAuthenticator],
            useFactory: (local: LocalKeyAuthenticator) => local,
          },
        }),
        AuthFeatureModule,
        OrgsModule,
        AgentPackagesModule,
        UsersModule,
        ServiceAccountsModule,
        AuditModule,
        NodesModule,
        ServicesModule,
        DeploymentPoliciesModule,
        DisruptionControlsModule,
        ChangesModule,
        HaGroupsModule,
        ManagementPoliciesModule,
        ManagementStatusModule,
      ],
    };
  }
}
