/**
 * @careen/disruption: when and how much of a fleet may be disrupted. Maintenance windows,
 * freezes and budgets, their selectors, and the pure checks the agbot's gate runs.
 */
export {
  DISRUPTION_CONTROL_KINDS,
  type Budget,
  type DisruptionControlKind,
  type Freeze,
  type MaintenanceWindow,
} from './disruption-controls';
export { covers, describeSelector, type DisruptionSelector, type SelectedNode } from './disruption-selector';
export { allowedDown, isPercent, limitProblem, type UnavailableLimit } from './unavailable-limit';
export {
  WEEKDAYS,
  WindowSchedule,
  recurrenceProblem,
  type WeekdayName,
  type WindowRecurrence,
  type WindowOpening,
  type WindowState,
} from './window-schedule';
export {
  disruptionCalendar,
  type CalendarFreeze,
  type CalendarWindow,
  type DisruptionCalendar,
} from './disruption-calendar';
export { TimeGate, inHours, type TimeRefusal } from './time-gate';
export { checkBudget, type BudgetRefusal, type BudgetUsage } from './budget-check';
export { matchesAll, parseMatcher, type AlertMatcher } from './alert-matchers';
export {
  AlertGate,
  alertGateProblem,
  DEFAULT_EVALUATION_SECONDS,
  describeAlert,
  type AlertAnswer,
  type AlertGateSettings,
  type AlertScope,
  type GateRefusal as AlertGateRefusal,
} from './alert-gate';
export { soakFailure, soakRefusal, type EndedStep, type SoakRefusal } from './soak';
export { busyRefusal, type BusyDeclaration, type BusyRefusal } from './busy-node';
export {
  checkInstanceGroup,
  fitsInstanceGroup,
  instanceGroupRecovery,
  type InstanceGroupUsage,
} from './instance-group-check';
