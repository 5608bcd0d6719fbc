/** A dependency that must answer for the service to take traffic (database, bus). */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('careen:readiness-checks');
