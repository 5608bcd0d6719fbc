/**
 * The listener contract: `onChange` sees the change inside the mirror's transaction, and
 * `afterCommit` only once any other reader of the mirror sees it too. The placement loop reads
 * the mirror on its own connection, so a change it learnt of earlier could be read as missing
 * and never looked at again.
 */
import { type ChangePayload } from '@careen/contracts';
import { ProcessedMessages } from '@careen/persistence';
import { startServiceInProcess, type InProcessService } from '@careen/service';
import { useTestInfra } from '@careen/testing';
import { type EntityManager } from 'typeorm';
import { type AgbotConfig } from '../agbot.config';
import { agbotService } from '../agbot.service';
import { type ChangeListener } from './change-listener';
import { ExchangeMirror } from './exchange-mirror';
import { MirrorChangeHandler } from './mirror-change-handler';

const serviceChange = (version: string): ChangePayload => ({
  org: 'acme',
  resource: 'service',
  resourceId: 'web',
  operation: 'updated',
  changedAt: new Date().toISOString(),
  data: { org: 'acme', id: 'web', url: 'web', version, arch: 'amd64' },
});

/** Records the version of `web` each hook reads, inside the transaction and outside it. */
class ReadingListener implements ChangeListener {
  readonly seen: string[] = [];

  constructor(private readonly mirror: ExchangeMirror) {}

  async onChange(_change: ChangePayload, manager: EntityManager): Promise<void> {
    this.seen.push(`in transaction: ${await this.version(manager)}`);
    this.seen.push(`outside, before commit: ${await this.version()}`);
  }

  /** afterCommit cannot wait for its read; the test waits for these. */
  readonly reads: Promise<void>[] = [];

  afterCommit(change: ChangePayload): void {
    const label = `after commit of ${String(change.data?.['version'])}`;
    this.reads.push(this.version().then((version) => void this.seen.push(`${label}: ${version}`)));
  }

  private async version(manager?: EntityManager): Promise<string | undefined> {
    const service = await this.mirror.findResource<{ version: string }>('acme', 'service', 'web', manager);
    return service?.version;
  }
}

describe('mirror change handler', () => {
  const infra = useTestInfra();
  let agbot: InProcessService<AgbotConfig>;
  let mirror: ExchangeMirror;
  let processed: ProcessedMessages;

  beforeAll(async () => {
    // No exchange credentials: this agbot only follows the stream, and nothing else writes the mirror.
    agbot = await startServiceInProcess(agbotService, infra, { CAREEN_EXCHANGE_URL: 'http://127.0.0.1:9' });
    mirror = agbot.app.get(ExchangeMirror);
    processed = agbot.app.get(ProcessedMessages);
  });

  afterAll(() => agbot?.close());

  it('tells listeners of a change in its transaction, and again once every reader sees it', async () => {
    const listener = new ReadingListener(mirror);
    const handler = new MirrorChangeHandler(processed, mirror, [listener]);
    await handler.handleAll([{ eventId: 'exchange-1', change: serviceChange('1.0.0') }]);
    await Promise.all(listener.reads);
    await handler.handleAll([{ eventId: 'exchange-2', change: serviceChange('2.0.0') }]);
    await Promise.all(listener.reads);
    expect(listener.seen).toEqual([
      'in transaction: 1.0.0',
      'outside, before commit: undefined',
      'after commit of 1.0.0: 1.0.0',
      'in transaction: 2.0.0',
      'outside, before commit: 1.0.0',
      'after commit of 2.0.0: 2.0.0',
    ]);
  });

  it('does not tell listeners again of a change delivered twice, or of one older than the mirror', async () => {
    const listener = new ReadingListener(mirror);
    const handler = new MirrorChangeHandler(processed, mirror, [listener]);
    await handler.handleAll([{ eventId: 'exchange-2', change: serviceChange('2.0.0') }]);
    await handler.handleAll([{ eventId: 'exchange-1', change: serviceChange('1.0.0') }]);
    expect(listener.seen).toEqual([]);
    expect(await mirror.findResource('acme', 'service', 'web')).toMatchObject({ version: '2.0.0' });
  });

  it('handles changes that came together in one transaction, in order, and one a listener wants alone in its own', async () => {
    const transactions = new Map<EntityManager, number>();
    const seen: string[] = [];
    const listener: ChangeListener = {
      alone: (change) => change.resourceId === 'alone',
      async onChange(change, manager) {
        if (!transactions.has(manager)) transactions.set(manager, transactions.size + 1);
        seen.push(`${change.resourceId} in transaction ${transactions.get(manager)}`);
      },
      afterCommit: (change) => void seen.push(`${change.resourceId} committed`),
    };
    const handler = new MirrorChangeHandler(processed, mirror, [listener]);
    const orgChange = (id: string): ChangePayload => ({
      org: 'acme',
      resource: 'user',
      resourceId: id,
      operation: 'updated',
      changedAt: new Date().toISOString(),
    });
    await handler.handleAll([
      { eventId: 'exchange-101', change: orgChange('a') },
      { eventId: 'exchange-102', change: orgChange('b') },
      { eventId: 'exchange-101', change: orgChange('a') },
      { eventId: 'exchange-103', change: orgChange('alone') },
      { eventId: 'exchange-104', change: orgChange('c') },
    ]);
    expect(seen).toEqual([
      'a in transaction 1',
      'b in transaction 1',
      'a committed',
      'b committed',
      'alone in transaction 2',
      'alone committed',
      'c in transaction 3',
      'c committed',
    ]);
    // Delivered again, together or not, none of them is handled twice.
    await handler.handleAll([
      { eventId: 'exchange-102', change: orgChange('b') },
      { eventId: 'exchange-104', change: orgChange('c') },
    ]);
    expect(seen).toHaveLength(8);
  });
});
