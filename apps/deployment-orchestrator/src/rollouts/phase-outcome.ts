/**
 * A node's management status read as its answer to a phase: prepared once its agent downloaded
 * and verified the package (`downloaded`), deployed once it runs the version (`successful`), or
 * already there (`no-action-required`); failed on any end state that is not those. Anything else
 * is still under way.
 */
import { type ManagementStatusValue } from '@careen/contracts';
import { SOAK_FAILED } from '../fleet/soak-gateway';
import { type NodeOutcome, type Phase } from './rollout-engine';

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
