import { SetMetadata } from '@nestjs/common';
import { type Role } from '../principal';

export const REQUIRED_ROLES = 'careen:auth:roles';

/** Users need one of these roles; a hub admin always passes. Says nothing about nodes. */
export const Roles = (...roles: Role[]): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_ROLES, roles);
