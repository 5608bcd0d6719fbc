/** The orchestrator's refusals, each with a stable code; transports map the kind once. */
import { DomainError, fieldsOf, type StrategyProblem } from '@careen/contracts';

export const invalidStrategy = (problems: readonly StrategyProblem[]) =>
  new DomainError(
    'invalid',
    'orchestrator.invalid-strategy',
    `invalid strategy: ${problems.map((each) => `${each.path || '(document)'}: ${each.problem}`).join('; ')}`,
    { fields: fieldsOf(problems) },
  );

export const malformedYaml = (why: string) =>
  new DomainError('invalid', 'orchestrator.malformed-yaml', `malformed YAML body: ${why}`);

export const noStrategyInBody = () =>
  new DomainError(
    'invalid',
    'orchestrator.no-strategy',
    'no strategy in the body: send it as application/json or application/yaml',
  );

export const strategyNotFound = (name: string, version?: number) =>
  new DomainError(
    'not-found',
    'orchestrator.strategy-not-found',
    version === undefined ? `no strategy "${name}"` : `strategy "${name}" has no version ${version}`,
    { strategy: name, ...(version !== undefined && { version }) },
  );

export const packageNotFound = (version: string) =>
  new DomainError(
    'invalid',
    'orchestrator.unknown-version',
    `no agent package of version "${version}" in the exchange`,
    {
      version,
    },
  );

export const rolloutNotFound = (id: string) =>
  new DomainError('not-found', 'orchestrator.rollout-not-found', `no rollout "${id}"`, { rollout: id });

export const nodesHeld = (holders: readonly { node: string; holder: string }[]) =>
  new DomainError(
    'conflict',
    'orchestrator.nodes-held',
    holders
      .slice(0, 10)
      .map((each) => `node "${each.node}" is in ${each.holder}`)
      .join('; ') + (holders.length > 10 ? ` and ${holders.length - 10} more` : ''),
    { holders },
  );

export const rolloutFinished = (id: string, state: string) =>
  new DomainError('conflict', 'orchestrator.rollout-finished', `rollout ${id} has ended (${state})`, {
    rollout: id,
    state,
  });

export const rolloutStateRefused = (id: string, state: string, action: string) =>
  new DomainError(
    'conflict',
    'orchestrator.rollout-state',
    `rollout ${id} is ${state}: cannot ${action} it`,
    {
      rollout: id,
      state,
    },
  );

export const nodeNotFound = (node: string) =>
  new DomainError('not-found', 'orchestrator.node-not-found', `no node "${node}" in the org`, {
    node_id: node,
  });

export const nodeNotUpgradeable = (node: string, why: string) =>
  new DomainError(
    'conflict',
    'orchestrator.node-not-upgradeable',
    `node "${node}" cannot be upgraded now: ${why}`,
    {
      node_id: node,
      why,
    },
  );

export const downgradeRefused = (node: string, running: string, asked: string) =>
  new DomainError(
    'conflict',
    'orchestrator.downgrade-refused',
    `node "${node}" runs agent ${running}: ${asked} would be a downgrade; ask again with allowDowngrade to mean it`,
    { node_id: node, running, version: asked },
  );

/** A rollout that would take nodes below the version they run, without the operator's word. */
export const rolloutDowngradeRefused = (
  version: string,
  nodes: readonly { node_id: string; running: string }[],
) =>
  new DomainError(
    'conflict',
    'orchestrator.downgrade-refused',
    `${version} is below the agent version ${nodes.length} node(s) of the rollout run: ` +
      nodes
        .slice(0, 10)
        .map((each) => `node "${each.node_id}" runs ${each.running}`)
        .join(', ') +
      (nodes.length > 10 ? ` and ${nodes.length - 10} more` : '') +
      '; start it with allow_downgrade to take them down to it',
    { version, nodes: [...nodes] },
  );

export const exchangeUnavailable = (why: string) =>
  new DomainError('unavailable', 'orchestrator.exchange-unavailable', why);

export const agbotUnavailable = (why: string) =>
  new DomainError('unavailable', 'orchestrator.agbot-unavailable', why);

export const unknownStrategy = (name: string, version?: number) =>
  new DomainError(
    'invalid',
    'orchestrator.unknown-strategy',
    version === undefined ? `no strategy "${name}"` : `strategy "${name}" has no version ${version}`,
    { strategy: name, ...(version !== undefined && { version }) },
  );
