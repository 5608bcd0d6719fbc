/**
 * Records a change of an exchange resource in the caller's transaction, or in the very statement
 * that makes it (a hot route that then needs no transaction). Every mutation of the exchange goes
 * through here, so every committed change reaches CAREEN_CHANGES.
 */
import {
  type ChangePayload,
  ExchangeChanged,
  type ChangeContractOf,
  type ChangeOperation,
  type ChangeResource,
} from '@careen/contracts';
import { jsonObject, OutboxWriter } from '@careen/persistence';
import { careenActorHeaders } from '@careen/service';
import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';

@Injectable()
export class ChangeRecorder {
  constructor(private readonly outbox: OutboxWriter) {}

  record<R extends ChangeResource>(manager: EntityManager, change: Change<R>): Promise<void> {
    return this.outbox.append(
      manager,
      ExchangeChanged,
      ...this.message(change),
      change.byCareen ? { headers: careenActorHeaders('exchange') } : undefined,
    );
  }

  /**
   * SQL recording a change for each row of `from`, for a caller that writes the change and its
   * record in one statement of its own: `data` is the resource after the change, field by field
   * in SQL, and the record's other values are the four parameters from `$first` on, which
   * `values` answers. Once the statement has run, `written` wakes the relay.
   */
  sql(from: string, data: Record<string, string>, first: number): string {
    const [subject, type, payload, headers] = [0, 1, 2, 3].map((offset) => `$${first + offset}`);
    return this.outbox.appendFrom(from, {
      subject: `${subject}::text`,
      type: `${type}::text`,
      payload: `${payload}::jsonb || jsonb_build_object('data', ${jsonObject(data)})`,
      headers: `${headers}::jsonb`,
    });
  }

  /** The values of `sql`'s four parameters, for a change whose `data` the statement writes. */
  values<R extends ChangeResource>(change: Omit<Change<R>, 'data'>): unknown[] {
    const [subjectArgs, payload] = this.message(change);
    return [
      ExchangeChanged.subject(...subjectArgs),
      ExchangeChanged.type,
      JSON.stringify(payload),
      JSON.stringify(this.outbox.headers()),
    ];
  }

  /** Says that a statement of the caller's, run through `manager`, recorded changes (see `sql`). */
  written(manager: EntityManager): void {
    this.outbox.written(manager);
  }

  private message<R extends ChangeResource>(
    change: Change<R>,
  ): [subjectArgs: [string, ChangeResource, string], payload: ChangePayload] {
    return [
      [change.org, change.resource, change.resourceId],
      {
        org: change.org,
        resource: change.resource,
        resourceId: change.resourceId,
        operation: change.operation,
        changedAt: new Date().toISOString(),
        ...(change.byNode ? { byNode: true } : {}),
        ...(change.event ? { event: change.event } : {}),
        ...(change.data ? { data: { ...change.data } } : {}),
      },
    ];
  }
}

export interface Change<R extends ChangeResource> {
  org: string;
  resource: R;
  resourceId: string;
  operation: ChangeOperation;
  /** The resource after the change, which its contract (@careen/contracts) types. */
  data?: ChangeContractOf<R>;
  /** The node the change is about made it itself. */
  byNode?: boolean;
  /** What happened, where the operation alone does not say. */
  event?: string;
  /** The exchange decided it itself, whoever's request led to it (a failure threshold). */
  byCareen?: boolean;
}
