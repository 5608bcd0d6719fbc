/**
 * A project's maintenance events as a live sequence, for `GET /v1/stream`: read from
 * CAREEN_MAINT with an ordered (ephemeral) consumer filtered to `careen.maint.project.<project>`,
 * from the stream sequence after the one a client last saw, or from now on. Only the org's
 * events pass (a project's subject is shared by the orgs that name it); a message that does not
 * decode is skipped, never shown. Open streams end when the service shuts down, so that it does
 * not wait on its followers.
 */
import { decodeMessage, headerLookup, type BusConnection } from '@careen/bus';
import { MaintenanceProjectEvent, STREAMS } from '@careen/contracts';
import { DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import { type OnModuleDestroy } from '@nestjs/common';

export interface StreamedEvent {
  /** The stream sequence: the SSE event id a client resumes after. */
  sequence: number;
  /** CloudEvents 1.0, structured mode. */
  event: {
    specversion: '1.0';
    id: string;
    type: string;
    source: string;
    time: string;
    subject: string;
    datacontenttype: 'application/json';
    /** The same sequence as an extension attribute, as webhooks carry it (`ce-streamsequence`). */
    streamsequence: string;
    data: object;
  };
}

export interface OpenStream {
  events: AsyncIterable<StreamedEvent>;
  close(): void;
}

export class ProjectEventStream implements OnModuleDestroy {
  private readonly open = new Set<ConsumerMessages>();

  constructor(private readonly bus: BusConnection) {}

  onModuleDestroy(): void {
    for (const messages of this.open) void messages.close();
  }

  /** The org's events of `project`, after stream sequence `after` when given, else from now on. */
  async follow(org: string, project: string, after: number | undefined): Promise<OpenStream> {
    const consumer = await this.bus.js.consumers.get(STREAMS.maintenance.name, {
      // One subject, which servers before 2.10 (no filter_subjects) take too.
      filter_subjects: MaintenanceProjectEvent.subject(project),
      ...(after === undefined
        ? { deliver_policy: DeliverPolicy.New }
        : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 }),
    });
    const messages: ConsumerMessages = await consumer.consume();
    this.open.add(messages);
    void messages.closed().finally(() => this.open.delete(messages));
    return {
      events: matching(messages, org),
      close: () => void messages.close(),
    };
  }
}

async function* matching(messages: ConsumerMessages, org: string): AsyncIterable<StreamedEvent> {
  for await (const message of messages) {
    const decoded = decodeMessage(
      MaintenanceProjectEvent.payload,
      MaintenanceProjectEvent.type,
      message.data,
      headerLookup(message.headers),
    );
    if (!decoded.ok || decoded.payload.org !== org) continue;
    const { attributes } = decoded;
    yield {
      sequence: message.seq,
      event: {
        specversion: '1.0',
        id: attributes.id,
        type: attributes.type,
        source: attributes.source,
        time: attributes.time,
        subject: message.subject,
        datacontenttype: 'application/json',
        streamsequence: String(message.seq),
        data: JSON.parse(message.string()) as object,
      },
    };
  }
}
