import { untilAborted } from './until-aborted';

describe('untilAborted', () => {
  it('resolves when the signal aborts later', async () => {
    const controller = new AbortController();
    let resolved = false;
    const waiting = untilAborted(controller.signal).then(() => (resolved = true));
    await Promise.resolve();
    expect(resolved).toBe(false);
    controller.abort();
    await waiting;
    expect(resolved).toBe(true);
  });

  it('resolves for a signal that aborted before the wait began', async () => {
    await expect(untilAborted(AbortSignal.abort())).resolves.toBeUndefined();
  });
});
