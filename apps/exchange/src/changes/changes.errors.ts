import { DomainError } from '@careen/contracts';

export enum ChangeFeedErrorCode {
  SinceTooOld = 'SINCE_TOO_OLD',
}

/** The changes after `since` were pruned: the caller must resync its state, then follow from `resyncFrom`. */
export const sinceTooOld = (since: number, resyncFrom: number) =>
  new DomainError(
    'gone',
    ChangeFeedErrorCode.SinceTooOld,
    `changes after ${since} are no longer kept; resync, then follow from ${resyncFrom}`,
    { resyncFrom },
  );
