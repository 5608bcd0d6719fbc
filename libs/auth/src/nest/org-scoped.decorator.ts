import { SetMetadata } from '@nestjs/common';

export const ORG_SCOPE_PARAM = 'careen:auth:org-scope-param';

/**
 * The route parameter `param` names an org the caller must belong to, unless a hub admin. A
 * parameter named `org` is scoped without it; name another parameter with it.
 */
export const OrgScoped = (param = 'org'): MethodDecorator & ClassDecorator =>
  SetMetadata(ORG_SCOPE_PARAM, param);
