/**
 * Answers every failure of a FleetLock route in the protocol's `{kind, value}` shape: a
 * database out of reach is `unavailable` (503, try again), as on every other route.
 */
import { isDatabaseUnavailable, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { type FastifyReply } from 'fastify';
import { FleetLockError } from './fleetlock.errors';

@Catch()
export class FleetLockErrorFilter implements ExceptionFilter {
  constructor(@Inject(SERVICE_LOGGER) private readonly logger: JsonLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<FastifyReply>();
    const error = this.toFleetLockError(exception);
    if (response.sent) return;
    if (error.status === 503) void response.header('Retry-After', '1');
    void response.status(error.status).send(error.body);
  }

  private toFleetLockError(exception: unknown): FleetLockError {
    if (exception instanceof FleetLockError) return exception;
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      return new FleetLockError('invalid_client_params', exception.message);
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({ err: (exception as Error).message }, 'FleetLock request: database unavailable');
      return new FleetLockError('unavailable', 'the database is unavailable; try again shortly');
    }
    this.logger.error(
      { err: exception instanceof Error ? (exception.stack ?? exception.message) : String(exception) },
      'FleetLock request failed',
    );
    return new FleetLockError('internal_error', 'internal error');
  }
}
