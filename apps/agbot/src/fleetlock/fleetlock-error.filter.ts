/** Answers every failure of a FleetLock route in the protocol's `{kind, value}` shape. */
import { SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import { type Response } from 'express';
import { FleetLockError } from './fleetlock.errors';

@Catch()
export class FleetLockErrorFilter implements ExceptionFilter {
  constructor(@Inject(SERVICE_LOGGER) private readonly logger: JsonLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const error = this.toFleetLockError(exception);
    if (response.headersSent) return;
    response.status(error.status).json(error.body);
  }

  private toFleetLockError(exception: unknown): FleetLockError {
    if (exception instanceof FleetLockError) return exception;
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      return new FleetLockError('invalid_client_params', exception.message);
    }
    this.logger.error(
      { err: exception instanceof Error ? (exception.stack ?? exception.message) : String(exception) },
      'FleetLock request failed',
    );
    return new FleetLockError('internal_error', 'internal error');
  }
}
