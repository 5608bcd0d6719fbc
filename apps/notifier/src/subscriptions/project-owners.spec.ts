import { DomainError } from '@careen/contracts';
import { ProjectOwners } from './project-owners';

describe('ProjectOwners', () => {
  it('refuses to answer, naming the setting, when the notifier has no exchange password', async () => {
    const answer = new ProjectOwners(undefined).ofAnotherOrg('acme', 'shop');
    await expect(answer).rejects.toBeInstanceOf(DomainError);
    await expect(answer).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('CAREEN_NOTIFIER_EXCHANGE_PASSWORD'),
    });
  });
});
