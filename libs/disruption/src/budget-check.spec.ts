import { checkBudget } from './budget-check';
import { covers, describeSelector } from './disruption-selector';
import { allowedDown, limitProblem } from './unavailable-limit';

describe('budgets', () => {
  it('allows a percentage of the covered nodes, rounded up, never less than one', () => {
    expect(allowedDown('10%', 40)).toBe(4);
    expect(allowedDown('10%', 41)).toBe(5);
    expect(allowedDown('10%', 3)).toBe(1);
    expect(allowedDown('100%', 0)).toBe(1);
    expect(allowedDown(3, 1000)).toBe(3);
  });

  it('refuses once the other nodes down reach the limit, counting a node once and never the asker', () => {
    const usage = {
      name: 'ams',
      scope: 'site=ams',
      limit: '10%' as const,
      covered: 40,
      down: ['a', 'b', 'b', 'c'],
    };
    expect(checkBudget('d', usage)).toBeUndefined();
    expect(checkBudget('a', { ...usage, down: [...usage.down, 'd'] })).toBeUndefined();
    expect(checkBudget('e', { ...usage, down: [...usage.down, 'd'] })).toEqual({
      reason: 'budget',
      control: 'ams',
      allowed: 4,
      holders: ['a', 'b', 'c', 'd'],
      message: 'budget "ams" (site=ams, at most 10% of 40 down): 4 of 4 held by a, b, c, d',
    });
  });

  it.each([
    [0, 'from 1 to'],
    [1.5, 'from 1 to'],
    ['0%', 'from 1% to 100%'],
    ['101%', 'from 1% to 100%'],
    ['ten', 'from 1% to 100%'],
    [null, 'a count'],
  ])('refuses %j as a limit', (value, problem) => {
    expect(limitProblem(value)).toContain(problem);
  });

  it('covers a node when every criterion given matches', () => {
    const node = { id: 'n1', labels: { site: 'ams', tier: 'edge' }, rack: 'r1', haGroup: 'line-1' };
    expect(covers({}, node)).toBe(true);
    expect(covers({ labels: { site: 'ams' }, racks: ['r1', 'r2'] }, node)).toBe(true);
    expect(covers({ labels: { site: 'ams' }, racks: ['r2'] }, node)).toBe(false);
    expect(covers({ haGroups: ['line-2'] }, node)).toBe(false);
    expect(covers({ nodes: ['n1'] }, { ...node, rack: null })).toBe(true);
    expect(covers({ racks: ['r1'] }, { ...node, rack: null })).toBe(false);
    expect(describeSelector({ labels: { site: 'ams' }, racks: ['r1', 'r2'] })).toBe('site=ams, racks r1|r2');
    expect(describeSelector({})).toBe('every node');
  });
});
