/**
 * Tells the audit trail of an action no other event of the service tells of, in the caller's
 * transaction: an AuditAction on the outbox, stamped like every message with who acts (the
 * request's principal, or the service itself). A caller acting for someone the guard does not
 * know (a VNF manager by its capability) names them.
 */
import { ACTOR_HEADERS, AuditAction, type AuditActionPayload } from '@careen/contracts';
import { OutboxWriter } from '@careen/persistence';
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

@Injectable()
export class AuditTrail {
  constructor(
    private readonly outbox: OutboxWriter,
    @Inject(SERVICE_NAME) private readonly service: string,
  ) {}

  record(
    manager: EntityManager,
    action: Omit<AuditActionPayload, 'outcome'> & Partial<Pick<AuditActionPayload, 'outcome'>>,
    by?: NamedActor,
  ): Promise<void> {
    const headers = by
      ? { [ACTOR_HEADERS.actor]: by.actor, [ACTOR_HEADERS.kind]: by.kind, [ACTOR_HEADERS.via]: by.via }
      : undefined;
    return this.outbox.append(
      manager,
      AuditAction,
      [action.org, this.service],
      { outcome: 'succeeded', ...action },
      { headers },
    );
  }
}
