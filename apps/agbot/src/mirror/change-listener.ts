import { type ChangePayload } from '@careen/contracts';
import { type EntityManager } from 'typeorm';

/**
 * Something in the agbot that reacts to an exchange change after the mirror has applied it,
 * in stream order, once per change (a redelivered change that the mirror had already applied
 * is not passed on again). `onChange` runs in the mirror's transaction.
 */
export interface ChangeListener {
  /**
   * `onChange` may share its transaction with the changes that arrived along with this one; a
   * listener answers true for a change it must handle in a transaction of its own (one whose
   * locks must be taken before any other, say).
   */
  alone?(change: ChangePayload): boolean;
  onChange?(change: ChangePayload, manager: EntityManager): Promise<void>;
  /**
   * Called once that transaction has committed: the mirror now shows the change to every
   * reader. A listener that reads the mirror outside the transaction must learn of the change
   * here, not in `onChange`: a read between the two would still see the mirror without it.
   */
  afterCommit?(change: ChangePayload): void;
}

/** Nest token for the listeners the changes consumer calls, in order. */
export const CHANGE_LISTENERS = Symbol('CHANGE_LISTENERS');
