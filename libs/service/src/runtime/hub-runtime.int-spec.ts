/**
 * A hub runtime's leader work: one of the replicas sharing a key leads, after its parts started,
 * shows it as `careen_leader`, and gives the lead up only once its parts have stopped; another
 * replica then takes over.
 */
import { eventually, useTestInfra } from '@careen/testing';
import { untilAborted } from '../loop/until-aborted';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { HubRuntime } from './hub-runtime';

const KEY = 'careen:hub-runtime-test:driver';

describe('HubRuntime leading', () => {
  const infra = useTestInfra();
  const running: HubRuntime[] = [];

  afterAll(async () => {
    await Promise.all(running.map((hub) => hub.stop()));
  });

  function replica(name: string, events: string[]): { hub: HubRuntime; metrics: MetricsRegistry } {
    const metrics = new MetricsRegistry(name);
    const hub = new HubRuntime({
      config: { CAREEN_EXCHANGE_URL: 'http://127.0.0.1:9', CAREEN_DATABASE_URL: infra.databaseUrl },
      login: { user: 'root/root', password: undefined, passwordSetting: 'CAREEN_TEST_EXCHANGE_PASSWORD' },
      logger: { info: () => undefined, warn: () => undefined },
      metrics,
    })
      .part(() => {
        events.push(`${name} part started`);
        return { stop: () => events.push(`${name} part stopped`) };
      })
      .runWhileLeading(KEY, async (signal) => {
        events.push(`${name} leading`);
        await untilAborted(signal);
        events.push(`${name} stopped leading`);
      });
    running.push(hub);
    return { hub, metrics };
  }

  async function leaderGauge(metrics: MetricsRegistry): Promise<number | undefined> {
    const gauge = (await metrics.registry.getMetricsAsJSON()).find(
      (metric) => metric.name === 'careen_leader',
    );
    return gauge?.values.find((value) => value.labels['role'] === KEY)?.value;
  }

  it('leads on one replica after its parts start, and hands over once they stopped', async () => {
    const events: string[] = [];
    const first = replica('first', events);
    await first.hub.start();
    await eventually(() => expect(first.hub.isLeader).toBe(true));
    expect(events).toEqual(['first part started', 'first leading']);
    expect(await leaderGauge(first.metrics)).toBe(1);

    const second = replica('second', events);
    await second.hub.start();
    expect(second.hub.isLeader).toBe(false);
    expect(await leaderGauge(second.metrics)).toBe(0);

    events.length = 0;
    await first.hub.stop();
    // The second replica may take the lead before the first's stop returns, never before the
    // first has stopped leading.
    expect(events.slice(0, 2)).toEqual(['first part stopped', 'first stopped leading']);
    expect(first.hub.isLeader).toBe(false);
    await eventually(() => expect(second.hub.isLeader).toBe(true));
    expect(events).toEqual(['first part stopped', 'first stopped leading', 'second leading']);
  });
});
