/**
 * FleetLock's error answers: `{kind, value}` with a 4xx or 5xx status. Clients track `kind` in
 * metrics, so its values are few and fixed.
 */
export const FLEETLOCK_ERROR_KINDS = {
  missing_fleetlock_header: 400,
  invalid_client_params: 400,
  group_mismatch: 400,
  unauthenticated: 401,
  forbidden: 403,
  unknown_client: 404,
  failed_lock_semaphore_full: 409,
  /** The group had room, and a window, freeze or budget said no: `value` says which and until when. */
  failed_lock_disruption_gated: 409,
  internal_error: 500,
  not_configured: 503,
  unavailable: 503,
} as const;
export type FleetLockErrorKind = keyof typeof FLEETLOCK_ERROR_KINDS;

export interface FleetLockErrorBody {
  kind: FleetLockErrorKind;
  value: string;
}

export class FleetLockError extends Error {
  constructor(
    readonly kind: FleetLockErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'FleetLockError';
  }

  get status(): number {
    return FLEETLOCK_ERROR_KINDS[this.kind];
  }

  get body(): FleetLockErrorBody {
    return { kind: this.kind, value: this.message };
  }
}
