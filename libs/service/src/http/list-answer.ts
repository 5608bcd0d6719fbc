/**
 * The answer of every list route: `{items, total}`, `total` the number of items in the answer.
 * Only the JSON: each route documents its own list DTO (the OpenAPI documents name them), which
 * this shape must keep matching.
 */
export interface ListAnswer<T> {
  items: T[];
  total: number;
}

export function listAnswer<T>(items: T[]): ListAnswer<T> {
  return { items, total: items.length };
}
