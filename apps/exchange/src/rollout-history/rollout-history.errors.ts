import { DomainError } from '@careen/contracts';

export enum RolloutHistoryErrorCode {
  NotYours = 'HISTORY_NOT_YOURS',
}

export const notYourHistory = () =>
  new DomainError('forbidden', RolloutHistoryErrorCode.NotYours, 'a node may read only its own history');
