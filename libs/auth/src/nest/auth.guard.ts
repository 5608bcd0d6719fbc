/**
 * The global guard of every Careen HTTP service: authenticates Bearer (an access token or a
 * service account's key) or Basic credentials, leaves the principal on the request, then applies
 * the route's @AllowNodes, @NeedsRole, @OnResource and @OrgScoped requirements. Routes are
 * closed unless marked @Public(), and a route with an `:org` parameter is scoped to that org
 * whether or not it says @OrgScoped().
 */
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type AccessRequirements, assertAccess } from '../access-rules';
import { AuthenticationError, isAuthError } from '../auth.errors';
import { type KeyAuthenticator } from '../api-key';
import { authenticateHeader, requestCredentials, type CredentialCheckers } from '../authenticate-header';
import { type BasicAuthenticator } from '../basic-authenticator';
import { type TokenVerifier } from '../token-verifier';
import { authErrorToHttp, WWW_AUTHENTICATE } from './auth-error.mapper';
import { BASIC_AUTHENTICATOR, KEY_AUTHENTICATOR, TOKEN_VERIFIER } from './auth.tokens';
import { type AuthenticatedRequest } from './authenticated-request';
import { NODES_ALLOWED } from './node-allowed.decorator';
import { ORG_SCOPE_PARAM } from './org-scoped.decorator';
import { PUBLIC_ROUTE } from './public.decorator';
import { PROJECT_SCOPED, ROUTE_RESOURCE } from './resource.decorator';
import { neededRole } from './role-declarations';
import { type RouteResource } from '../scopes';

/** What the guard needs of the reply (Fastify's). */
interface HeaderSink {
  header(name: string, value: string): unknown;
}

@Injectable()
export class AuthGuard implements CanActivate {
  private readonly checkers: CredentialCheckers;

  constructor(
    private readonly reflector: Reflector,
    @Inject(TOKEN_VERIFIER) verifier: TokenVerifier,
    @Inject(BASIC_AUTHENTICATOR) basic: BasicAuthenticator,
    @Inject(KEY_AUTHENTICATOR) keys: KeyAuthenticator,
  ) {
    this.checkers = { verifier, basic, keys };
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // Only HTTP carries credentials; bus handlers are internal and trusted by their stream.
    if (context.getType() !== 'http') return true;
    if (this.metadata<boolean>(context, PUBLIC_ROUTE)) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    try {
      const { principal, via } = await authenticateHeader(requestCredentials(request.headers), this.checkers);
      request.principal = principal;
      request.credential = via;
      assertAccess(principal, this.requirements(context, request));
      return true;
    } catch (error) {
      if (!isAuthError(error)) throw error;
      if (error instanceof AuthenticationError) {
        http.getResponse<HeaderSink>().header('WWW-Authenticate', WWW_AUTHENTICATE);
      }
      throw authErrorToHttp(error);
    }
  }

  private requirements(context: ExecutionContext, request: AuthenticatedRequest): AccessRequirements {
    // A route with an :org parameter is scoped to that org by default: forgetting @OrgScoped()
    // must not open another org's data to any authenticated caller.
    const orgParam =
      this.metadata<string>(context, ORG_SCOPE_PARAM) ??
      (request.params?.org !== undefined ? 'org' : undefined);
    let org: string | undefined;
    if (orgParam !== undefined) {
      org = request.params?.[orgParam];
      if (org === undefined) {
        throw new Error(`@OrgScoped('${orgParam}') is on a route without a :${orgParam} parameter`);
      }
    }
    return {
      allowNodes: this.metadata<boolean>(context, NODES_ALLOWED) ?? false,
      role: neededRole(this.reflector, [context.getHandler(), context.getClass()], request.method),
      resource: this.metadata<RouteResource>(context, ROUTE_RESOURCE),
      org,
      projectScoped: this.metadata<boolean>(context, PROJECT_SCOPED) ?? false,
    };
  }

  private metadata<T>(context: ExecutionContext, key: string): T | undefined {
    return this.reflector.getAllAndOverride<T | undefined>(key, [context.getHandler(), context.getClass()]);
  }
}
