/**
 * An org's disruption controls as the exchange keeps them: recurring maintenance windows,
 * freezes and budgets, each named and attached to the nodes its selector covers.
 */
import { type DisruptionSelector } from './disruption-selector';
import { type UnavailableLimit } from './unavailable-limit';
import { type WindowRecurrence } from './window-schedule';

export const DISRUPTION_CONTROL_KINDS = ['window', 'freeze', 'budget', 'gate'] as const;
export type DisruptionControlKind = (typeof DISRUPTION_CONTROL_KINDS)[number];

interface Control {
  org: string;
  name: string;
  description?: string;
  selector: DisruptionSelector;
}

/** A disruption starts only inside a window that covers its node (where any covers it). */
export interface MaintenanceWindow extends Control, WindowRecurrence {}

/** No disruption starts on a covered node from `from` until `until` (ISO 8601 instants). */
export interface Freeze extends Control {
  from: string;
  until: string;
}

/** At most `maxUnavailable` of the covered nodes are disrupted at once. */
export interface Budget extends Control {
  maxUnavailable: UnavailableLimit;
}
