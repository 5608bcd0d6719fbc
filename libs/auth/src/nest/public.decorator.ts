import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'careen:auth:public';

/** The route needs no credentials (health, metrics, docs, the token endpoint itself). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);
