import { ApiProblem, isPartOf, problemFrom } from './problem';

describe("a service's refusal, as the console reads it", () => {
  it('takes the message, the code and each field with its problems from the error body', () => {
    const problem = problemFrom(
      400,
      {
        statusCode: 400,
        error: 'Bad Request',
        message: 'invalid request: window: window must be an integer number',
        details: {
          code: 'INVALID_REQUEST',
          fields: [
            { field: 'window', problems: ['window must be an integer number'] },
            { field: 'projects.shop.reply_timeout_seconds', problems: ['must not be less than 1'] },
            { field: 42, problems: 'not a list' },
          ],
        },
      },
      'exchange',
    );
    expect([problem.status, problem.code, problem.message]).toEqual([
      400,
      'INVALID_REQUEST',
      'invalid request: window: window must be an integer number',
    ]);
    expect(problem.fields).toHaveLength(2);
    expect(problem.problemsOf('window')).toEqual(['window must be an integer number']);
    expect(problem.problemsOf('projects')).toEqual(['must not be less than 1']);
    expect(problem.problemsOf('hosts')).toEqual([]);
  });

  it("reads FleetLock's own shape, and says which service gave an answer that is no error body", () => {
    expect(
      problemFrom(409, { kind: 'failed_lock_semaphore_full', value: 'group busy' }, 'agbot'),
    ).toMatchObject({
      message: 'group busy',
      code: 'failed_lock_semaphore_full',
    });
    const unreachable = problemFrom(503, '<html>proxy error</html>', 'deployment orchestrator');
    expect(unreachable).toBeInstanceOf(ApiProblem);
    expect(unreachable.message).toBe(
      'the deployment orchestrator service answered 503: it is not reachable now, try again in a moment',
    );
    expect(problemFrom(418, undefined, 'notifier').code).toBe('418');
  });

  it('counts a nested or listed field as part of its parent, and nothing else', () => {
    expect(isPartOf('hosts', 'hosts')).toBe(true);
    expect(isPartOf('hosts[2]', 'hosts')).toBe(true);
    expect(isPartOf('selector.racks', 'selector')).toBe(true);
    expect(isPartOf('hostsExtra', 'hosts')).toBe(false);
  });
});
