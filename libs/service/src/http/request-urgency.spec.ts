import { DEFAULT_URGENCY, urgencyOf } from './request-urgency';

describe('urgencyOf: the urgency an HTTP Priority field (RFC 9218) asks for', () => {
  it.each<[string | string[] | undefined, number]>([
    [undefined, DEFAULT_URGENCY],
    ['', DEFAULT_URGENCY],
    ['u=1', 1],
    ['u=0, i', 0],
    ['i, u=7', 7],
    [' u=2 ', 2],
    ['u=5;ext=1', 5],
    // A dictionary's last member of a name is its value.
    ['u=1, u=6', 6],
    [['u=6', 'u=2'], 2],
    // Out of range, not an integer, or a bare flag: the default.
    ['u=8', DEFAULT_URGENCY],
    ['u=-1', DEFAULT_URGENCY],
    ['u=1.5', DEFAULT_URGENCY],
    ['u=x', DEFAULT_URGENCY],
    ['u', DEFAULT_URGENCY],
    ['u=1, u=9', DEFAULT_URGENCY],
    // Other members and names that only begin with u are not urgency.
    ['ux=1', DEFAULT_URGENCY],
    ['i', DEFAULT_URGENCY],
  ])('%j asks for %d', (field, urgency) => {
    expect(urgencyOf(field)).toBe(urgency);
  });
});
