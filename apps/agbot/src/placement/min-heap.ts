/** A binary min-heap over a comparison, for picking the least-loaded failure domain quickly. */
export class MinHeap<T> {
  private readonly items: T[];

  constructor(
    private readonly before: (a: T, b: T) => boolean,
    items: T[] = [],
  ) {
    this.items = items;
    for (let index = (items.length >> 1) - 1; index >= 0; index--) this.down(index);
  }

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const { items } = this;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.down(0);
    }
    return top;
  }

  private up(index: number): void {
    const { items } = this;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(items[index] as T, items[parent] as T)) return;
      this.swap(index, parent);
      index = parent;
    }
  }

  private down(index: number): void {
    const { items } = this;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < items.length && this.before(items[left] as T, items[smallest] as T)) smallest = left;
      if (right < items.length && this.before(items[right] as T, items[smallest] as T)) smallest = right;
      if (smallest === index) return;
      this.swap(index, smallest);
      index = smallest;
    }
  }

  private swap(a: number, b: number): void {
    const { items } = this;
    const held = items[a] as T;
    items[a] = items[b] as T;
    items[b] = held;
  }
}
