/**
 * What a VNF manager asks to be done with each of its instances on a host about to go: here,
 * the least disruptive action the state allows (a live migration, else a migration). An
 * application that can hand its work over itself would answer OWN_ACTION where it is allowed.
 */
import { type InstanceAction } from '@careen/contracts';

const PREFERENCE: readonly InstanceAction[] = ['LIVE_MIGRATE', 'MIGRATE', 'OWN_ACTION'];

export function chooseInstanceActions(
  instances: readonly { instance_id: string; host: string }[],
  host: string | undefined,
  allowed: readonly InstanceAction[],
): Record<string, InstanceAction> {
  const action = PREFERENCE.find((each) => allowed.includes(each));
  if (!action) return {};
  return Object.fromEntries(
    instances
      .filter((instance) => host === undefined || instance.host === host)
      .map((instance) => [instance.instance_id, action]),
  );
}
