import { summaryOf } from './session-view';

describe('summaryOf', () => {
  it('says what a note notes instead of the word note', () => {
    expect(summaryOf({ kind: 'note', state: null, detail: { message: 'session paused' } })).toBe(
      'session paused',
    );
    expect(
      summaryOf({ kind: 'note', state: 'MAINTENANCE_FAILED', detail: { failure: 'h1 did not come back' } }),
    ).toBe('MAINTENANCE_FAILED: h1 did not come back');
    expect(
      summaryOf({ kind: 'note', state: null, detail: { managementPolicy: 'up-2', status: 'successful' } }),
    ).toBe('agent upgrade by policy up-2: successful');
    expect(summaryOf({ kind: 'note', state: 'MAINTENANCE_DONE', detail: {} })).toBe('MAINTENANCE_DONE');
  });

  it('gives the state sent or received as it came', () => {
    expect(summaryOf({ kind: 'received', state: 'ACK_MAINTENANCE', detail: {} })).toBe('ACK_MAINTENANCE');
    expect(summaryOf({ kind: 'refused', state: null, detail: {} })).toBe('refused');
  });
});
