/**
 * The reply consumer on a real JetStream: the replies waiting together go to their sessions at
 * once, and when one session's step fails only that reply comes again. The others were taken:
 * given again, they would be refused as answered, a refusal in their timeline that never was.
 */
import { connectBus, ensureStreams, EventPublisher, type BusConnection } from '@careen/bus';
import { MaintenanceReply, STREAMS } from '@careen/contracts';
import { createLogger } from '@careen/telemetry';
import { eventually, useTestInfra } from '@careen/testing';
import { listenForReplies } from './reply-listener';

describe('the reply consumer', () => {
  const infra = useTestInfra();
  let bus: BusConnection;

  beforeAll(async () => {
    bus = await connectBus({ url: infra.natsUrl, name: 'reply-listener-test' });
    await ensureStreams(bus.jsm, [STREAMS.maintenance, STREAMS.deadLetters]);
  });

  afterAll(() => bus.close());

  it('gives again only the reply whose step failed, not those taken with it', async () => {
    const given: string[] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const consumer = await listenForReplies(
      bus,
      {
        reply: async (session) => {
          given.push(session);
          // The consumer is held in the first reply until the next two have reached it.
          if (session === 'held') await gate;
          // Its first step fails, as a transaction whose connection was lost does.
          if (session === 'broken' && given.filter((each) => each === 'broken').length === 1)
            throw new Error('Connection terminated unexpectedly');
        },
      },
      createLogger('maintenance-session', { level: 'error' }),
    );
    try {
      const publisher = new EventPublisher(bus.js, 'test/vnf-manager');
      const reply = (session: string) =>
        publisher.publish(MaintenanceReply, [session, 'red'], { state: 'ACK_MAINTENANCE' });
      await reply('held');
      await eventually(() => expect(given).toEqual(['held']));
      await reply('broken');
      await reply('fine');
      await eventually(async () => {
        const info = await bus.jsm.consumers.info(STREAMS.maintenance.name, consumer.name);
        expect(info.num_ack_pending).toBe(3);
      });
      openGate();

      await eventually(() => expect(given).toEqual(['held', 'broken', 'fine', 'broken']), {
        timeoutMs: 10_000,
      });
      await eventually(async () => {
        const info = await bus.jsm.consumers.info(STREAMS.maintenance.name, consumer.name);
        expect({ pending: info.num_pending, unacknowledged: info.num_ack_pending }).toEqual({
          pending: 0,
          unacknowledged: 0,
        });
      });
      expect(given.filter((each) => each === 'fine')).toHaveLength(1);
    } finally {
      await consumer.stop();
    }
  });
});
