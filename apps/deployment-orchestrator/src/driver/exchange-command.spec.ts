import { type CarriedOutCommand, type ExchangeCommand, policyFacts, policyOf } from './exchange-command';

const at = (seconds: number) => new Date(Date.UTC(2026, 11, 1, 0, 0, seconds));
const ensure: ExchangeCommand = {
  kind: 'ensure-policy',
  org: 'acme',
  policy: { name: 'p', nodes: ['n1'], version: '2.0.0', action: 'install', description: 'd' },
};
const pause = (paused: boolean): ExchangeCommand => ({ kind: 'set-paused', org: 'acme', name: 'p', paused });
const done = (command: ExchangeCommand, seconds: number, refused?: string): CarriedOutCommand => ({
  command,
  result: refused === undefined ? null : { refused },
  doneAt: at(seconds),
});

describe('what the commands carried out for a policy tell', () => {
  it('nothing yet: not placed, not paused', () => {
    expect(policyFacts([])).toEqual({ paused: false });
  });

  it('when it was placed, whether the last pause or resume paused it, and when it was removed', () => {
    expect(policyFacts([done(ensure, 1), done(pause(true), 2)])).toEqual({ placedAt: at(1), paused: true });
    expect(policyFacts([done(ensure, 1), done(pause(true), 2), done(pause(false), 3)])).toEqual({
      placedAt: at(1),
      paused: false,
    });
    expect(
      policyFacts([done(ensure, 1), done({ kind: 'remove-policy', org: 'acme', name: 'p' }, 4)]),
    ).toEqual({ placedAt: at(1), paused: false, removedAt: at(4) });
  });

  it('the refusal of the last creation, which a later creation carried out replaces', () => {
    expect(policyFacts([done(ensure, 1, 'no package')])).toEqual({ refused: 'no package', paused: false });
    expect(policyFacts([done(ensure, 1, 'no package'), done(ensure, 5)])).toEqual({
      placedAt: at(5),
      paused: false,
    });
  });

  it('names the policy each command is about', () => {
    expect([ensure, pause(true)].map(policyOf)).toEqual(['p', 'p']);
  });
});
