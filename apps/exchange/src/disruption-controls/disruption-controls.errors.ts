import { DomainError } from '@careen/contracts';
import { type DisruptionControlKind } from '@careen/disruption';

export enum DisruptionControlErrorCode {
  NotFound = 'DISRUPTION_CONTROL_NOT_FOUND',
}

export const controlNotFound = (org: string, kind: DisruptionControlKind, name: string) =>
  new DomainError('not-found', DisruptionControlErrorCode.NotFound, `${kind} "${org}/${name}" not found`, {
    org,
    kind,
    name,
  });
