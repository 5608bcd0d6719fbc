/**
 * The role each route needs: what @NeedsRole says, or viewer for a read. A route that changes
 * anything must say which role it needs; a service with one that does not refuses to start,
 * naming it, so that no write is opened to viewers by omission.
 */
import { Injectable, type OnApplicationBootstrap, RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { type Role } from '../principal';
import { NEEDED_ROLE } from './needs-role.decorator';
import { PUBLIC_ROUTE } from './public.decorator';

const READS = new Set(['GET', 'HEAD']);

/** A route's handler and controller, where its decorators are read. */
type HandlerAndClass = Parameters<Reflector['getAllAndOverride']>[1];

/**
 * The least role for a request to the handler; an undeclared write (which the start-up check
 * keeps out of a running service) needs an org admin.
 */
export function neededRole(reflector: Reflector, targets: HandlerAndClass, method: string): Role {
  const declared = reflector.getAllAndOverride<Role | undefined>(NEEDED_ROLE, targets);
  return declared ?? (READS.has(method.toUpperCase()) ? 'viewer' : 'orgAdmin');
}

@Injectable()
export class RoleDeclarationCheck implements OnApplicationBootstrap {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    const undeclared = this.undeclaredWrites();
    if (undeclared.length > 0)
      throw new Error(`routes that change state without @NeedsRole: ${undeclared.join(', ')}`);
  }

  /** "POST v1/rollouts (RolloutsController.start)" for each write with no role and no @Public. */
  undeclaredWrites(): string[] {
    const found: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const controller = wrapper.metatype as Type | undefined;
      const prototype = controller?.prototype as Record<string, unknown> | undefined;
      if (!controller || !prototype) continue;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as HandlerAndClass[number];
        const method = this.reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler);
        if (method === undefined || method === RequestMethod.GET || method === RequestMethod.HEAD) continue;
        const targets: HandlerAndClass = [handler, controller];
        if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) continue;
        if (this.reflector.getAllAndOverride<Role>(NEEDED_ROLE, targets)) continue;
        const path = [
          this.reflector.get<string>(PATH_METADATA, controller),
          this.reflector.get<string>(PATH_METADATA, handler),
        ]
          .filter((part) => part && part !== '/')
          .join('/');
        found.push(`${RequestMethod[method]} ${path} (${controller.name}.${name})`);
      }
    }
    return found.sort();
  }
}
