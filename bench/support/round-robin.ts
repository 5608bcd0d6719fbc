/** Round robin over a list that is never empty: the item whose turn `turn` is. */
export function inTurn<T>(items: readonly T[], turn: number): T {
  const item = items[turn % items.length];
  if (item === undefined) throw new Error('there is nothing to take turns over: the list is empty');
  return item;
}
