import { ExchangeClient } from '../hub-client/exchange-client';
import { untilAborted } from '../loop/until-aborted';
import { MetricsRegistry } from '../metrics/metrics.registry';
import { HubRuntime, type ServiceLogin, type StartedPart } from './hub-runtime';

const CONFIG = { CAREEN_EXCHANGE_URL: 'http://127.0.0.1:9', CAREEN_DATABASE_URL: 'postgres://unused' };
const LOGIN: ServiceLogin = {
  user: 'root/agbot',
  password: 'secret',
  passwordSetting: 'CAREEN_TEST_EXCHANGE_PASSWORD',
  without: 'nothing is placed',
};

describe('HubRuntime', () => {
  let warnings: { fields: object; message: string }[];
  let events: string[];

  beforeEach(() => {
    warnings = [];
    events = [];
  });

  function runtime(login: Partial<ServiceLogin> = {}): HubRuntime {
    return new HubRuntime({
      config: CONFIG,
      login: { ...LOGIN, ...login },
      logger: { info: () => undefined, warn: (fields, message) => warnings.push({ fields, message }) },
      metrics: new MetricsRegistry('hub-runtime-test'),
    });
  }

  /** A consumer whose stop takes a turn of the event loop, so stops that overlap show it. */
  function consumer(name: string): StartedPart {
    return {
      stop: async () => {
        events.push(`stopping ${name}`);
        await new Promise((resolve) => setImmediate(resolve));
        events.push(`stopped ${name}`);
      },
    };
  }

  it('starts the parts in order, then the work; stops the parts last first, then the work', async () => {
    const hub = runtime()
      .part(async () => {
        events.push('start consumers');
        return [consumer('replies'), consumer('admin')];
      })
      .part(() => {
        events.push('start responder');
        return { unsubscribe: () => events.push('unsubscribed responder') };
      })
      .runOnEveryReplica(async (signal) => {
        events.push('work running');
        await untilAborted(signal);
        await new Promise((resolve) => setImmediate(resolve));
        events.push('work ended');
      });

    await hub.start();
    expect(events).toEqual(['start consumers', 'start responder', 'work running']);
    expect(hub.isLeader).toBe(false);

    events.length = 0;
    await hub.stop();
    expect(events).toEqual([
      'unsubscribed responder',
      // Started together, stopped together.
      'stopping replies',
      'stopping admin',
      'stopped replies',
      'stopped admin',
      'work ended',
    ]);
  });

  it('stops the parts started before one that failed to start', async () => {
    const hub = runtime()
      .part(() => consumer('first'))
      .part(() => Promise.reject(new Error('bus away')));
    await expect(hub.start()).rejects.toThrow('bus away');
    await hub.stop();
    expect(events).toEqual(['stopping first', 'stopped first']);
  });

  it('signs in to the exchange only with a password', () => {
    expect(runtime().exchange).toBeInstanceOf(ExchangeClient);
    expect(runtime({ password: undefined }).exchange).toBeUndefined();
    expect(runtime({ password: '' }).exchange).toBeUndefined();
  });

  it('says at start what is missing without a password, naming the setting', async () => {
    await runtime({ password: undefined }).start();
    expect(warnings).toEqual([
      {
        fields: { variable: 'CAREEN_TEST_EXCHANGE_PASSWORD' },
        message: 'no exchange credentials: nothing is placed',
      },
    ]);
  });

  it('says nothing with a password, nor when the service has nothing to say', async () => {
    await runtime().start();
    await runtime({ password: undefined, without: undefined }).start();
    expect(warnings).toEqual([]);
  });

  it('runs one background work', () => {
    const hub = runtime().runOnEveryReplica(() => Promise.resolve());
    expect(() => hub.runOnEveryReplica(() => Promise.resolve())).toThrow(/one background work/);
    expect(() => hub.runWhileLeading('careen:test:twice', () => Promise.resolve())).toThrow(
      /one background work/,
    );
  });
});
