import { http, useTestInfra } from '@careen/testing';
import { startServiceInProcess } from '@careen/service';
import { exchangeService } from '../exchange.service';

/** Collects the JSON log lines a service writes. */
function logCollector() {
  const lines: Record<string, unknown>[] = [];
  return {
    lines,
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  };
}

const token = (url: string, password: string) =>
  http(url, 'POST', '/v1/auth/token', { body: { org: 'root', username: 'root', password } });

describe('hub admin bootstrap', () => {
  const infra = useTestInfra();

  it('generates and prints the root password once, then keeps it across restarts', async () => {
    const first = logCollector();
    const exchange = await startServiceInProcess(
      exchangeService,
      infra,
      { CAREEN_LOG_LEVEL: 'warn' },
      { logDestination: first.destination },
    );
    const announcement = first.lines.find(
      (line) => line.msg === 'generated the hub admin password; store it now',
    );
    const password = String(announcement?.password);
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect((await token(exchange.url, password)).status).toBe(200);
    await exchange.close();

    const second = logCollector();
    const restarted = await startServiceInProcess(
      exchangeService,
      infra,
      { CAREEN_LOG_LEVEL: 'warn' },
      { logDestination: second.destination },
    );
    expect(second.lines.some((line) => line.password !== undefined)).toBe(false);
    expect((await token(restarted.url, password)).status).toBe(200);
    await restarted.close();
  });

  it('follows CAREEN_ROOT_PASSWORD when it is set or changed', async () => {
    const exchange = await startServiceInProcess(exchangeService, infra, {
      CAREEN_ROOT_PASSWORD: 'chosen-password-2',
    });
    expect((await token(exchange.url, 'chosen-password-2')).status).toBe(200);
    await exchange.close();
  });
});
