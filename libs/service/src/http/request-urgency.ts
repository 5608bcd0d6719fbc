/**
 * A request marked more urgent than the default with HTTP's `Priority` header (RFC 9218: `u=0`
 * most urgent to `u=7`, 3 by default) runs its route with precedence for database connections
 * (connection-precedence.ts): an agent marks the requests it sends while its node is out of
 * service for an upgrade. The marking only orders the service's own queue; it grants nothing
 * the caller's credentials do not, and its guards (which run before it) read without it.
 */
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { withPrecedence } from '@careen/persistence';
import { type FastifyRequest } from 'fastify';
import { type Observable } from 'rxjs';

export const DEFAULT_URGENCY = 3;

/**
 * The urgency a `Priority` field asks for: its last `u` member, when that is an integer from 0
 * to 7; otherwise the default, as the RFC says of a value out of range or a field not parsed.
 */
export function urgencyOf(field: string | string[] | undefined): number {
  const members = [field ?? []].flat().flatMap((line) => line.split(','));
  const urgency = members
    .map((member) => /^\s*u(?:=([^;]*))?(?:;.*)?$/.exec(member))
    .filter((match) => match !== null)
    .at(-1)?.[1]
    ?.trim();
  return urgency !== undefined && /^[0-7]$/.test(urgency) ? Number(urgency) : DEFAULT_URGENCY;
}

@Injectable()
export class RequestUrgencyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const { priority } = context.switchToHttp().getRequest<FastifyRequest>().headers;
    // Nest binds the route to the async context next.handle() is called in.
    return urgencyOf(priority) < DEFAULT_URGENCY ? withPrecedence(() => next.handle()) : next.handle();
  }
}
