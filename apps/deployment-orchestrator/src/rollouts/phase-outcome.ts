/**
 * A node's management status read as its answer to a phase: prepared once its agent downloaded
 * and verified the package (`downloaded`), deployed once it runs the version (`successful`), or
 * already there (`no-action-required`); failed on any end state that is not those. Anything else
 * is still under way.
 */
import { type ManagementStatusValue } from '@careen/contracts';
import { type PolicyStatus } from '../fleet/fleet-gateway';
import { type SoakState } from '../fleet/soak-gateway';
import { type NodeOutcome, type Phase } from './rollout-engine';

/** A node whose step ended, shown so while an alert gate's soak of it lasts (or it halts its group). */
export const SOAKING = 'soaking';
/** A node whose step an alert failed during the soak that followed it. */
const SOAK_FAILED = 'soak-failed';

const DONE: Record<Phase, readonly string[]> = {
  prepare: ['downloaded', 'successful', 'no-action-required'],
  deploy: ['successful', 'no-action-required'],
};

const FAILED: readonly string[] = [
  'conflict',
  'download-failed',
  'precheck-failed',
  'rolled-back',
  'rollback-failed',
  SOAK_FAILED,
] satisfies readonly (ManagementStatusValue | typeof SOAK_FAILED)[];

/** The statuses with which a node answers a phase one way or the other. */
export const ANSWERS: readonly string[] = [...new Set([...DONE.prepare, ...DONE.deploy, ...FAILED])];

/** The statuses of a node in the middle of a step, which a cancel lets finish. */
export const MID_STEP: readonly string[] = ['downloading', 'initiated', 'failed', 'rolling-back'];

export function phaseOutcome(
  phase: Phase,
  reported: { status: string; error: string | null },
): NodeOutcome | undefined {
  if (DONE[phase].includes(reported.status)) return { ok: true };
  if (FAILED.includes(reported.status))
    return { ok: false, error: reported.error ? `${reported.status}: ${reported.error}` : reported.status };
  return undefined;
}

/**
 * The statuses as the agbot's soaks (GET …/soaks) leave them: a node that reported `successful`
 * is still `soaking` while it holds its slot or its soak lasts (`halted` while it halts its
 * group), and `soak-failed` when an alert fired during its soak; the others are as reported.
 */
export function withSoaks(
  statuses: readonly PolicyStatus[],
  soaks: ReadonlyMap<string, SoakState>,
): PolicyStatus[] {
  return statuses.map((reported) => {
    const soak = reported.status === 'successful' ? soaks.get(reported.node) : undefined;
    if (!soak) return reported;
    if (soak.state === 'soak-failed') return { ...reported, status: SOAK_FAILED, error: soak.error ?? null };
    if (soak.state === 'soaking')
      return {
        ...reported,
        status: SOAKING,
        error: `gate "${soak.gate}" soaks the step until ${soak.until}`,
      };
    return { ...reported, status: soak.state === 'halted' ? 'halted' : SOAKING, error: null };
  });
}
