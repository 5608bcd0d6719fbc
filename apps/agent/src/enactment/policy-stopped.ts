/**
 * The exchange or the agbot refused the next step of an enactment because its policy is
 * disabled or paused: the node does not start it (docs/architecture.md, The exchange: stopping
 * a policy is a barrier).
 */
export class PolicyStopped extends Error {
  constructor(
    readonly nmp: string,
    readonly by: 'exchange' | 'agbot',
  ) {
    super(`management policy "${nmp}" is disabled or paused (said the ${by}): the next step is not started`);
  }
}
