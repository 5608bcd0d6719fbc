/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: every dependency
 * answers within a second, else 503 naming the ones that did not).
 */
import { Public } from '@careen/auth';
import { Controller, Get, HttpCode, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { READINESS_CHECKS, type ReadinessCheck } from './readiness';

const CHECK_TIMEOUT_MS = 1_000;

@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[]) {}

  @Get('healthz')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(): Promise<{ status: 'ready'; checks: Record<string, 'ok'> }> {
    const results = await Promise.all(
      this.checks.map(async (check) => [check.name, await runCheck(check)] as const),
    );
    const failing = results.filter(([, problem]) => problem !== undefined);
    if (failing.length > 0) {
      throw new ServiceUnavailableException({
        message: `not ready: ${failing.map(([name, problem]) => `${name} (${problem})`).join(', ')}`,
      });
    }
    return { status: 'ready', checks: Object.fromEntries(results.map(([name]) => [name, 'ok' as const])) };
  }
}

async function runCheck(check: ReadinessCheck): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check.check(),
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS)),
      ),
    ]);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
}
