/**
 * Records a change of an exchange resource in the caller's transaction. Every mutation of
 * the exchange goes through here, so every committed change reaches CAREEN_CHANGES.
 */
import {
  ExchangeChanged,
  type ChangeContractOf,
  type ChangeOperation,
  type ChangeResource,
} from '@careen/contracts';
import { OutboxWriter } from '@careen/persistence';
import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';

@Injectable()
export class ChangeRecorder {
  constructor(private readonly outbox: OutboxWriter) {}

  record<R extends ChangeResource>(
    manager: EntityManager,
    change: {
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
    },
  ): Promise<void> {
    return this.outbox.append(manager, ExchangeChanged, [change.org, change.resource, change.resourceId], {
      org: change.org,
      resource: change.resource,
      resourceId: change.resourceId,
      operation: change.operation,
      changedAt: new Date().toISOString(),
      ...(change.byNode ? { byNode: true } : {}),
      ...(change.event ? { event: change.event } : {}),
      ...(change.data ? { data: { ...change.data } } : {}),
    });
  }
}
