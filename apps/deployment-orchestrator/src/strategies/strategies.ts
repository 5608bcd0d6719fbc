/**
 * Publishing, reading and planning strategies. A document comes as JSON or as YAML text (a
 * Shipyard document unchanged); it is stored as a new version only when it differs from the
 * newest, so a rollout started from a version keeps running exactly that.
 */
import { parse } from 'yaml';
import { type FleetGateway } from '../fleet/fleet-gateway';
import { invalidStrategy, malformedYaml, noStrategyInBody, strategyNotFound } from '../orchestrator.errors';
import { readStrategy, type StrategyProblem, yamlErrorMessage } from '@careen/contracts';
import { planStrategy, type StrategyPlan } from './strategy-plan';
import { type StoredStrategy, type StrategyStore } from './strategy-store';
import { strategyView, type StrategyView } from './strategy-view';

export class Strategies {
  constructor(
    private readonly store: StrategyStore,
    private readonly fleet: FleetGateway,
  ) {}

  async publish(
    org: string,
    actor: string,
    body: unknown,
  ): Promise<StrategyView & { created: boolean; warnings: StrategyProblem[] }> {
    if (body === undefined) throw noStrategyInBody();
    const reading = readStrategy(typeof body === 'string' ? parseYaml(body) : body);
    if ('problems' in reading) throw invalidStrategy(reading.problems);
    const { stored, created } = await this.store.publish(org, reading.strategy, actor);
    return { ...strategyView(stored), created, warnings: reading.warnings };
  }

  async list(org: string): Promise<StrategyView[]> {
    return (await this.store.list(org)).map(strategyView);
  }

  async get(org: string, name: string, version?: number): Promise<StrategyView> {
    return strategyView(await this.found(org, name, version));
  }

  /** The strategy over the org's nodes as they are now: nothing is sent. */
  async plan(org: string, name: string, version?: number): Promise<StrategyPlan & { version: number }> {
    const stored = await this.found(org, name, version);
    const [nodes, held] = await Promise.all([this.fleet.nodes(org), this.fleet.upgradingPolicies(org)]);
    return { ...planStrategy(stored.document, nodes, held), version: stored.version };
  }

  private async found(org: string, name: string, version?: number): Promise<StoredStrategy> {
    const stored = await this.store.get(org, name, version);
    if (!stored) throw strategyNotFound(name, version);
    return stored;
  }
}

function parseYaml(text: string): unknown {
  try {
    return parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw malformedYaml(yamlErrorMessage(error, text));
  }
}
