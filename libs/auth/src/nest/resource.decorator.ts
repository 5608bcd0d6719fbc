import { SetMetadata } from '@nestjs/common';
import { ANY_KEY, type Resource } from '../scopes';

export const ROUTE_RESOURCE = 'careen:auth:resource';

/**
 * The resource a controller's routes (or one route) act on: what a service account's key needs
 * a scope of to call them (`<resource>:read` for a read, `:write` for the rest). Routes without
 * one are closed to keys.
 */
export const OnResource = (resource: Resource): MethodDecorator & ClassDecorator =>
  SetMetadata(ROUTE_RESOURCE, resource);

export const PROJECT_SCOPED = 'careen:auth:project-scoped';

/**
 * The routes act on one project, and check which (assertProject): keys limited to projects may
 * call them, for their own projects. Every other route refuses such a key.
 */
export const ProjectScoped = (): MethodDecorator & ClassDecorator => SetMetadata(PROJECT_SCOPED, true);

/** Any key of the org may call the route, whatever its scopes (who am I). */
export const OpenToAnyKey = (): MethodDecorator & ClassDecorator => SetMetadata(ROUTE_RESOURCE, ANY_KEY);
