/**
 * The compiled checks of an agent's ask for its group's slot never accept what their
 * class-validator rules refuse, and take what agents send.
 */
import { checkCompiled } from '@careen/contracts';
import { createValidationPipe } from '@careen/service';
import { compiledCheckProperty, field, identifiers, queryNumbers, someOf } from '@careen/testing';
import fc from 'fast-check';
import { UpgradeRequestDto } from './dto/upgrade-request.dto';
import { UpgradeWaitQuery } from './dto/upgrade-wait.query';

const checkedAlike = compiledCheckProperty({
  compiled: checkCompiled,
  classValidator: createValidationPipe({ compiledChecks: false }),
});

describe('compiled checks of the upgrade ask', () => {
  it('its body: taken only as class-validator takes it', async () => {
    const body = someOf({
      managementPolicy: field(identifiers),
      renew: field(fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', 1, 0))),
    });
    expect(await checkedAlike(UpgradeRequestDto, 'body', body, 1_500)).toBeGreaterThan(100);
  });

  it('its query: taken only as class-validator takes it, the wait converted alike', async () => {
    expect(
      await checkedAlike(UpgradeWaitQuery, 'query', someOf({ wait: queryNumbers(60) }), 1_000),
    ).toBeGreaterThan(100);
  });

  it('what an agent sends takes the compiled path', () => {
    expect(checkCompiled(UpgradeRequestDto, 'body', { managementPolicy: 'upgrade-agents' })).toEqual({
      managementPolicy: 'upgrade-agents',
      renew: false,
    });
    expect(checkCompiled(UpgradeRequestDto, 'body', { managementPolicy: 'up', renew: true })).toEqual({
      managementPolicy: 'up',
      renew: true,
    });
    expect(checkCompiled(UpgradeWaitQuery, 'query', { wait: '30' })).toEqual({ wait: 30 });
    expect(checkCompiled(UpgradeWaitQuery, 'query', {})).toEqual({ wait: 0 });
  });
});
