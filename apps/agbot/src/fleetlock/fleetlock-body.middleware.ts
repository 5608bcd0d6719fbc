/**
 * FleetLock's routes read their body themselves, whatever its media type, so that a body that
 * is not JSON is refused in the protocol's `{kind, value}` like any other bad request. The
 * app's JSON parser, which answers before any route runs and in the shape of the rest of the
 * API, must therefore never take a FleetLock body: this runs before it and hides the media type.
 */
import { Injectable, type NestMiddleware } from '@nestjs/common';
import { type IncomingMessage } from 'node:http';

@Injectable()
export class FleetLockBodyMiddleware implements NestMiddleware {
  use(request: IncomingMessage, _response: unknown, next: () => void): void {
    delete request.headers['content-type'];
    next();
  }
}
