import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type Principal } from '../principal';
import { type AuthenticatedRequest } from './authenticated-request';

/** The principal the auth guard authenticated; undefined only on @Public() routes. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal | undefined =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().principal,
);
