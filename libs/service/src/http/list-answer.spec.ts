import { listAnswer } from './list-answer';

describe('listAnswer', () => {
  it('answers the items with their number, and nothing else', () => {
    expect(JSON.parse(JSON.stringify(listAnswer([{ id: 'a' }, { id: 'b' }])))).toEqual({
      items: [{ id: 'a' }, { id: 'b' }],
      total: 2,
    });
    expect(listAnswer([])).toEqual({ items: [], total: 0 });
  });
});
