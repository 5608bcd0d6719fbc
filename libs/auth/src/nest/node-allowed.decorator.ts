import { SetMetadata } from '@nestjs/common';

export const NODES_ALLOWED = 'careen:auth:nodes-allowed';

/** Nodes may call the route; without this a node's credentials get 403. */
export const AllowNodes = (): MethodDecorator & ClassDecorator => SetMetadata(NODES_ALLOWED, true);
