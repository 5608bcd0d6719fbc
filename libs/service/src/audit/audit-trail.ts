/**
 * Tells the audit trail of an action no other event of the service tells of, in the caller's
 * transaction: an AuditAction on the outbox, stamped like every message with who acts (the
 * request's principal, or the service itself). A caller acting for someone the guard does not
 * know (a VNF manager by its capability) names them.
 */
import { ACTOR_HEADERS, AuditAction, type AuditActionPayload } from '@careen/contracts';
import { OutboxWriter, type OutboxMessage } from '@careen/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { SERVICE_NAME } from '../platform/platform.tokens';

export interface NamedActor {
  /** `org/<kind>:<name>`, e.g. `acme/project:shop`. */
  actor: string;
  kind: string;
  /** How it proved who it is, e.g. `capability`. */
  via: string;
}

export type AuditedAction = Omit<AuditActionPayload, 'outcome'> &
  Partial<Pick<AuditActionPayload, 'outcome'>>;

@Injectable()
export class AuditTrail {
  constructor(
    private readonly outbox: OutboxWriter,
    @Inject(SERVICE_NAME) private readonly service: string,
  ) {}

  record(manager: EntityManager, action: AuditedAction, by?: NamedActor): Promise<void> {
    return this.outbox.appendAll(manager, [this.message(action, by)]);
  }

  /** The outbox message `record` writes, for a caller that writes several messages at once. */
  message(action: AuditedAction, by?: NamedActor): OutboxMessage {
    const headers = by
      ? { [ACTOR_HEADERS.actor]: by.actor, [ACTOR_HEADERS.kind]: by.kind, [ACTOR_HEADERS.via]: by.via }
      : undefined;
    return this.outbox.message(
      AuditAction,
      [action.org, this.service],
      { outcome: 'succeeded', ...action },
      { headers },
    );
  }
}
