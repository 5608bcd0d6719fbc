/**
 * Writes that many callers wait for, made together: each `add` waits until a write that holds
 * its item has committed; while one write runs, the items that come meanwhile gather for the
 * next. Under load one statement serves many callers; alone, a caller waits for one round trip.
 */
export class GroupCommit<T> {
  private waiting: { item: T; done: () => void; failed: (error: unknown) => void }[] = [];
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  add(item: T): Promise<void> {
    return new Promise((done, failed) => {
      this.waiting.push({ item, done, failed });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0);
      try {
        await this.write(batch.map((each) => each.item));
        for (const each of batch) each.done();
      } catch (error) {
        for (const each of batch) each.failed(error);
      }
    }
    this.writing = false;
  }
}
