/**
 * How an agent version is put in place. The upgrade runner only speaks this interface, so a
 * node whose agent comes as a .deb or an OCI image plugs in its own strategy.
 */
export interface InstallStrategy {
  readonly name: string;
  /** The version a (re)start runs, or null for the agent as first installed (no package yet). */
  activeVersion(): Promise<string | null>;
  /** Puts the verified package in place beside the active version; idempotent; activates nothing. */
  install(version: string, packageFile: string): Promise<void>;
  /** Makes `version` (null: the agent as first installed) the one the next start runs, atomically. */
  activate(version: string | null): Promise<void>;
  /** Throws, saying why, when the active version is not healthy. */
  healthCheck(version: string): Promise<void>;
  /** Removes an installed version that is not active; best effort. */
  remove(version: string): Promise<void>;
}

/** Brings the agent up again on its active version. */
export interface Restarter {
  /** Process agents exit for their supervisor to start them again (never returns). */
  restart(): Promise<void>;
}

/** Exit code that asks the supervisor (systemd `Restart=on-failure`, the simulator) to start the agent again. */
export const RESTART_EXIT_CODE = 75;
