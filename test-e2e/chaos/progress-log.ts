/** When each kind of work under way last moved: what recovery after a fault is measured against. */
export type WorkKind = 'agent-rollout' | 'maintenance' | 'strategy-rollout' | 'service-upgrade';

export const WORK_KINDS: readonly WorkKind[] = [
  'agent-rollout',
  'maintenance',
  'strategy-rollout',
  'service-upgrade',
];

export class ProgressLog {
  private readonly moments = new Map<WorkKind, number[]>(WORK_KINDS.map((kind) => [kind, []]));

  mark(kind: WorkKind, at = Date.now()): void {
    this.moments.get(kind)!.push(at);
  }

  /** The first moment at or after `from` that any of `kinds` moved, if one did. */
  firstAfter(kinds: readonly WorkKind[], from: number): number | undefined {
    let first: number | undefined;
    for (const kind of kinds)
      for (const at of this.moments.get(kind)!)
        if (at >= from && (first === undefined || at < first)) first = at;
    return first;
  }

  /** The last moment `kind` moved. */
  last(kind: WorkKind): number | undefined {
    return this.moments
      .get(kind)!
      .reduce<number | undefined>((latest, at) => Math.max(latest ?? at, at), undefined);
  }
}
