import { chooseInstanceActions } from './instance-actions';

const INSTANCES = [
  { instance_id: 'web@h1', host: 'h1' },
  { instance_id: 'db@h1', host: 'h1' },
  { instance_id: 'web@h2', host: 'h2' },
];

describe('instance actions of the reference VNF manager', () => {
  it('asks for a live migration of each instance on the host, where allowed', () => {
    expect(chooseInstanceActions(INSTANCES, 'h1', ['MIGRATE', 'LIVE_MIGRATE'])).toEqual({
      'web@h1': 'LIVE_MIGRATE',
      'db@h1': 'LIVE_MIGRATE',
    });
  });

  it('falls back to what the state allows, and names nothing when nothing is allowed', () => {
    expect(chooseInstanceActions(INSTANCES, 'h2', ['MIGRATE'])).toEqual({ 'web@h2': 'MIGRATE' });
    expect(chooseInstanceActions(INSTANCES, 'h2', [])).toEqual({});
  });
});
