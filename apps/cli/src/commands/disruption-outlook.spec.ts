import { describeOutlook } from './disruption.commands';

describe('careen window next', () => {
  it('says which instance group holds a node, and who impacts it', () => {
    const at = '2026-12-06T10:00:00.000Z';
    const text = describeOutlook(
      {
        node: 'n2',
        haGroup: null,
        at,
        mayStart: false,
        refusal: {
          reason: 'budget',
          control: 'instance-group:db-ha',
          holders: ['n1'],
          message:
            'instance group "db-ha" of project shop (at most 1 of its instances impacted at once): 1 impacted on n1, and n2 holds 1 more',
        },
        nextStart: at,
        windows: [],
        freezes: [],
        budgets: [],
        instanceGroups: [
          {
            group: 'db-ha',
            project: 'shop',
            maxImpacted: 1,
            own: 1,
            impacted: [{ node: 'n1', instances: 1 }],
            recoverySeconds: 0,
          },
          {
            group: 'web-ha',
            project: 'shop',
            maxImpacted: 2,
            own: 1,
            impacted: [],
            recoverySeconds: 30,
            recoversUntil: '2026-12-06T10:00:20.000Z',
          },
        ],
      },
      new Date(at),
    );
    expect(text.split('\n')).toEqual([
      'node n2 may not be disrupted now: instance group "db-ha" of project shop (at most 1 of its instances impacted at once): 1 impacted on n1, and n2 holds 1 more',
      'it may go as soon as a holder of the budget is done',
      'instance group "db-ha" of project shop: 1 of 1 impacted (on n1), 1 on this node',
      'instance group "web-ha" of project shop: 0 of 2 impacted, 1 on this node; recovers until 2026-12-06T10:00:20.000Z',
    ]);
  });
});
