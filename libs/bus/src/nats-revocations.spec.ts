import { nextRevocations } from './nats-revocations';

describe('nextRevocations', () => {
  it('adds the users to revoke, keeping the second an entry already has', () => {
    expect(nextRevocations({ UA: 100 }, { revoke: { UA: 200, UB: 200 }, forget: [] })).toEqual({
      UA: 100,
      UB: 200,
    });
  });

  it("forgets ended users of ours and keeps everyone else's entries", () => {
    expect(nextRevocations({ UA: 100, UOPERATOR: 50 }, { revoke: {}, forget: ['UA', 'UNEVER'] })).toEqual({
      UOPERATOR: 50,
    });
  });

  it('answers nothing when the account would not change', () => {
    expect(nextRevocations({ UA: 100 }, { revoke: { UA: 300 }, forget: ['UGONE'] })).toBeUndefined();
    expect(nextRevocations({}, { revoke: {}, forget: [] })).toBeUndefined();
  });
});
