/**
 * An agbot closed just as it begins to lead must still close: its leadership may end while its
 * change consumer is starting, before anything waits for that end.
 */
import { startServiceInProcess } from '@careen/service';
import { useTestInfra } from '@careen/testing';
import { setTimeout as delay } from 'node:timers/promises';
import { agbotService } from '../agbot.service';
import { AgbotLeadership } from './agbot-leadership';

const LEADER_KEY = 'careen:agbot:controller';
const LEAD_BOUND_MS = 10_000;
const CLOSE_BOUND_MS = 10_000;

/**
 * A log destination that learns when the agbot's election makes it the leader: the election says
 * `leading` as it takes the role, just before the agbot starts its change consumer.
 */
function leadershipWatch() {
  let won: () => void = () => undefined;
  const leading = new Promise<void>((resolve) => (won = resolve));
  return {
    leading,
    destination: {
      write(line: string): void {
        const entry = JSON.parse(line) as { msg?: string; key?: string };
        if (entry.msg === 'leading' && entry.key === LEADER_KEY) won();
      },
    },
  };
}

/** What `work` settles to, or `late` if it has not within `ms`. */
async function within<T, L extends string>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  const bound = new AbortController();
  try {
    return await Promise.race([work, delay(ms, late, { signal: bound.signal })]);
  } finally {
    bound.abort();
  }
}

describe('agbot leadership', () => {
  const infra = useTestInfra();

  it('closes when it is stopped as it begins to lead', async () => {
    // Each round closes the agbot a little later after it won the election, so that some close
    // lands while its change consumer is being set up.
    for (let round = 0; round < 10; round++) {
      const watch = leadershipWatch();
      const agbot = await startServiceInProcess(
        agbotService,
        infra,
        { CAREEN_EXCHANGE_URL: 'http://127.0.0.1:9', CAREEN_LOG_LEVEL: 'info' },
        { logDestination: watch.destination },
      );
      const led = await within(
        watch.leading.then(() => 'leading'),
        LEAD_BOUND_MS,
        'never led',
      );
      expect({ round, led }).toEqual({ round, led: 'leading' });
      expect(agbot.app.get(AgbotLeadership).isLeader).toBe(true);
      await delay(round % 5);
      const closed = await within(
        agbot.close().then(() => 'closed'),
        CLOSE_BOUND_MS,
        'still closing',
      );
      expect({ round, closed }).toEqual({ round, closed: 'closed' });
    }
  }, 120_000);
});
