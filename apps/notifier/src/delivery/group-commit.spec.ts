import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('writes what gathered while a write ran in one next write, and answers each caller after its own', async () => {
    const writes: number[][] = [];
    let release: (() => void) | undefined;
    const group = new GroupCommit<number>(async (items) => {
      writes.push(items);
      await new Promise<void>((resolve) => (release = resolve));
    });
    const settled: number[] = [];
    const first = group.add(1).then(() => settled.push(1));
    const rest = [2, 3, 4].map((n) => group.add(n).then(() => settled.push(n)));
    expect(writes).toEqual([[1]]);
    release!();
    await first;
    expect(settled).toEqual([1]);
    expect(writes).toEqual([[1], [2, 3, 4]]);
    release!();
    await Promise.all(rest);
    expect(settled).toEqual([1, 2, 3, 4]);
  });

  it('fails the callers of a failed write, and goes on with the next', async () => {
    let fail = true;
    const group = new GroupCommit<number>(async () => {
      if (fail) throw new Error('database gone');
    });
    await expect(group.add(1)).rejects.toThrow('database gone');
    fail = false;
    await expect(group.add(2)).resolves.toBeUndefined();
  });
});
