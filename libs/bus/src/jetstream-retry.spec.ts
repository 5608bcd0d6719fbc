import { isTransientJetStreamError, retryTransient } from './jetstream-retry';

const timeout = () => Object.assign(new Error('timeout'), { name: 'TimeoutError' });

describe('retryTransient', () => {
  it('tries again while the cluster cannot answer yet, and answers once it can', async () => {
    let calls = 0;
    const answer = await retryTransient(
      async () => {
        calls++;
        if (calls < 3) throw timeout();
        return 'answered';
      },
      { pauseMs: 1 },
    );
    expect({ answer, calls }).toEqual({ answer: 'answered', calls: 3 });
  });

  it('throws any other failure at once, and a transient one after the last attempt', async () => {
    let calls = 0;
    const refused = Object.assign(new Error('stream name already in use'), { code: 10058 });
    await expect(
      retryTransient(async () => {
        calls++;
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
    await expect(
      retryTransient(() => Promise.reject(timeout()), { attempts: 2, pauseMs: 1 }),
    ).rejects.toThrow('timeout');
  });

  it('tells transient failures by name or words', () => {
    expect(isTransientJetStreamError(timeout())).toBe(true);
    expect(isTransientJetStreamError(new Error('no responders: $JS.API.CONSUMER.INFO'))).toBe(true);
    expect(isTransientJetStreamError(new Error('jetstream is not enabled'))).toBe(true);
    expect(isTransientJetStreamError(new Error('consumer not found'))).toBe(false);
    expect(isTransientJetStreamError('timeout')).toBe(false);
  });
});
