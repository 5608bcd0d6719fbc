/**
 * An agbot closed just as it begins to lead must still close: its leadership may end while its
 * change consumer is starting, before anything waits for that end.
 */
import { startServiceInProcess } from '@careen/service';
import { useTestInfra } from '@careen/testing';
import { setTimeout as delay } from 'node:timers/promises';
import { agbotService } from '../agbot.service';
import { AgbotLeadership } from './agbot-leadership';

const CLOSE_BOUND_MS = 10_000;

describe('agbot leadership', () => {
  const infra = useTestInfra();

  it('closes when it is stopped as it begins to lead', async () => {
    // Each round closes the agbot a little later after it won the election, so that some close
    // lands while its change consumer is being set up.
    for (let round = 0; round < 10; round++) {
      const agbot = await startServiceInProcess(agbotService, infra, {
        CAREEN_EXCHANGE_URL: 'http://127.0.0.1:9',
      });
      const leadership = agbot.app.get(AgbotLeadership);
      while (!leadership.isLeader) await delay(1);
      await delay(round % 5);
      const bound = new AbortController();
      const outcome = await Promise.race([
        agbot.close().then(() => 'closed'),
        delay(CLOSE_BOUND_MS, 'still closing', { signal: bound.signal }).catch(() => 'closed'),
      ]);
      bound.abort();
      expect({ round, outcome }).toEqual({ round, outcome: 'closed' });
    }
  }, 120_000);
});
