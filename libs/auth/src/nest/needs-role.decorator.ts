import { SetMetadata } from '@nestjs/common';
import { type Role } from '../principal';

export const NEEDED_ROLE = 'careen:auth:role';

/**
 * The least role a user needs to call the route (a higher one passes too). Reads default to
 * viewer; every other route must say, or its service does not start. Says nothing about nodes.
 */
export const NeedsRole = (role: Role): MethodDecorator & ClassDecorator => SetMetadata(NEEDED_ROLE, role);
