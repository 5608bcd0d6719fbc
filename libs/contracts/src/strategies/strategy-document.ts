/**
 * Reads a DeploymentStrategy from what a client sent: a Shipyard document as Shipyard writes it
 * (`schema: shipyard/DeploymentStrategy/v1`, `metadata.name`, `data.groups`) or the short form
 * `{name, groups}`. It accepts what Shipyard's schema and validator accept and refuses what they
 * refuse, with the few differences docs/api.md lists. Every problem is listed at once, each with
 * its path: wrong types, missing required fields (`critical`, `depends_on`, `selectors`), unknown
 * selector or criteria fields, criteria out of range, duplicate group names, unknown dependencies
 * and every cycle. What Shipyard accepts but is suspicious (a group key no one reads, no groups,
 * a selector without criteria beside others) is accepted with a warning.
 */
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../identifiers';
import { findCycle } from './dependency-graph';
import {
  type DeploymentStrategy,
  type NodeSelector,
  type StrategyGroup,
  type StrategyProblem,
  type SuccessCriteria,
} from './strategy.types';

export const SHIPYARD_SCHEMA = 'shipyard/DeploymentStrategy/v1';

const LIMITS = { groups: 500, selectors: 100, values: 10_000, length: 253 };
const SELECTOR_FIELDS = ['node_names', 'node_tags', 'node_labels', 'rack_names'] as const;
const CRITERIA_FIELDS = ['percent_successful_nodes', 'minimum_successful_nodes', 'maximum_failed_nodes'];
const GROUP_FIELDS = ['name', 'critical', 'depends_on', 'selectors', 'success_criteria'];

export type StrategyReading =
  { strategy: DeploymentStrategy; warnings: StrategyProblem[] } | { problems: StrategyProblem[] };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

class Problems {
  readonly list: StrategyProblem[] = [];
  readonly warnings: StrategyProblem[] = [];

  add(path: string, problem: string): void {
    this.list.push({ path, problem });
  }

  warn(path: string, warning: string): void {
    this.warnings.push({ path, problem: warning });
  }

  /** Names every key of `value` not in `known`. */
  unknownFields(value: Json, known: readonly string[], path: string): void {
    for (const key of Object.keys(value))
      if (!known.includes(key)) this.add(join(path, key), 'unknown field');
  }
}

const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export function readStrategy(input: unknown): StrategyReading {
  const problems = new Problems();
  if (!isObject(input)) {
    problems.add('', 'a strategy must be an object (a Shipyard document, or {name, groups})');
    return { problems: problems.list };
  }
  let name: unknown;
  let groups: unknown;
  let groupsPath: string;
  if ('schema' in input || 'data' in input || 'metadata' in input) {
    problems.unknownFields(input, ['schema', 'metadata', 'data'], '');
    if (input.schema !== SHIPYARD_SCHEMA) problems.add('schema', `must be "${SHIPYARD_SCHEMA}"`);
    if (!isObject(input.metadata)) problems.add('metadata', 'required: an object with the name');
    else name = input.metadata.name;
    if (!isObject(input.data)) problems.add('data', 'required: an object with the groups');
    else {
      // Shipyard's schema leaves `data` open: an extra key is read by no one, not wrong.
      for (const key of Object.keys(input.data))
        if (key !== 'groups') problems.warn(join('data', key), IGNORED_KEY);
      groups = input.data.groups;
    }
    groupsPath = 'data.groups';
    readName(name, 'metadata.name', problems);
  } else {
    problems.unknownFields(input, ['name', 'groups'], '');
    name = input.name;
    groups = input.groups;
    groupsPath = 'groups';
    readName(name, 'name', problems);
  }
  const read = readGroups(groups, groupsPath, problems);
  if (problems.list.length > 0) return { problems: problems.list };
  return { strategy: { name: name as string, groups: read }, warnings: problems.warnings };
}

const IGNORED_KEY = "not a field of Shipyard's DeploymentStrategy: accepted, as Shipyard does, and ignored";

/**
 * A selector without criteria: alone it chooses every node, but beside other selectors Shipyard
 * drops it from the union, so it adds nothing.
 */
export function selectsEveryNode(selector: NodeSelector): boolean {
  return SELECTOR_FIELDS.every((field) => selector[field].length === 0);
}

function readName(name: unknown, path: string, problems: Problems): void {
  if (typeof name !== 'string' || !IDENTIFIER_PATTERN.test(name))
    problems.add(path, `required: the strategy's name, ${IDENTIFIER_RULE}`);
}

function readGroups(value: unknown, path: string, problems: Problems): StrategyGroup[] {
  if (!Array.isArray(value)) {
    problems.add(path, 'required: a list of groups');
    return [];
  }
  if (value.length === 0) problems.warn(path, 'no groups: a rollout of this strategy sends nothing');
  if (value.length > LIMITS.groups) {
    problems.add(path, `at most ${LIMITS.groups} groups`);
    return [];
  }
  const groups = value.map((group, index) => readGroup(group, join(path, index), problems));
  const firstAt = new Map<string, number>();
  groups.forEach((group, index) => {
    if (!group) return;
    const earlier = firstAt.get(group.name);
    if (earlier === undefined) firstAt.set(group.name, index);
    else
      problems.add(
        join(join(path, index), 'name'),
        `duplicate group name "${group.name}" (also ${join(path, earlier)})`,
      );
  });
  groups.forEach((group, index) =>
    group?.depends_on.forEach((dependency, at) => {
      const where = join(join(join(path, index), 'depends_on'), at);
      if (dependency === group.name) problems.add(where, 'a group cannot depend on itself');
      else if (!firstAt.has(dependency)) problems.add(where, `unknown group "${dependency}"`);
    }),
  );
  for (const cycle of everyCycle(groups.filter((group) => group !== undefined)))
    problems.add(path, `dependency cycle: ${cycle.join(' → ')} (each depends on the next)`);
  return groups.filter((group) => group !== undefined);
}

/**
 * Every cycle among the groups, one per knot: after one is found its first group is set aside
 * and the rest searched again. A group depending on itself is named on its own, not here.
 */
function everyCycle(groups: readonly StrategyGroup[]): string[][] {
  let remaining = groups.map((group) => ({
    name: group.name,
    depends_on: group.depends_on.filter((dependency) => dependency !== group.name),
  }));
  const cycles: string[][] = [];
  for (let cycle = findCycle(remaining); cycle; cycle = findCycle(remaining)) {
    cycles.push(cycle);
    remaining = remaining.filter((group) => group.name !== cycle![0]);
  }
  return cycles;
}

function readGroup(value: unknown, path: string, problems: Problems): StrategyGroup | undefined {
  if (!isObject(value)) {
    problems.add(path, 'a group must be an object');
    return undefined;
  }
  // Shipyard's schema leaves a group open: an extra key is read by no one, not wrong.
  for (const key of Object.keys(value))
    if (!GROUP_FIELDS.includes(key)) problems.warn(join(path, key), IGNORED_KEY);
  if (typeof value.name !== 'string' || !IDENTIFIER_PATTERN.test(value.name))
    problems.add(join(path, 'name'), `required: ${IDENTIFIER_RULE}`);
  if (typeof value.critical !== 'boolean') problems.add(join(path, 'critical'), 'required: true or false');
  const dependsOn = readStrings(value.depends_on, join(path, 'depends_on'), problems, true);
  const selectors = readSelectors(value.selectors, join(path, 'selectors'), problems);
  const criteria =
    value.success_criteria === undefined
      ? undefined
      : readCriteria(value.success_criteria, join(path, 'success_criteria'), problems);
  if (typeof value.name !== 'string') return undefined;
  // Returned with its problems too, so that the other groups' names and dependencies are checked.
  return {
    name: value.name,
    critical: value.critical as boolean,
    depends_on: [...new Set(dependsOn)],
    selectors,
    ...(criteria && { success_criteria: criteria }),
  };
}

function readStrings(value: unknown, path: string, problems: Problems, required: boolean): string[] {
  if (value === undefined || value === null) {
    if (required) problems.add(path, 'required: a list, which may be empty');
    return [];
  }
  if (!Array.isArray(value)) {
    problems.add(path, 'must be a list of strings');
    return [];
  }
  if (value.length > LIMITS.values) problems.add(path, `at most ${LIMITS.values} entries`);
  value.forEach((entry, index) => {
    if (typeof entry !== 'string' || entry.length === 0 || entry.length > LIMITS.length)
      problems.add(join(path, index), `must be a string of 1-${LIMITS.length} characters`);
  });
  return value.filter((entry): entry is string => typeof entry === 'string');
}

function readSelectors(value: unknown, path: string, problems: Problems): NodeSelector[] {
  if (value === undefined || value === null) {
    problems.add(path, 'required: a list of selectors, which may be empty (every node)');
    return [];
  }
  if (!Array.isArray(value)) {
    problems.add(path, 'must be a list of selectors');
    return [];
  }
  if (value.length > LIMITS.selectors) problems.add(path, `at most ${LIMITS.selectors} selectors`);
  const selectors = value.map((selector, index) => readSelector(selector, join(path, index), problems));
  if (selectors.some((selector) => !selectsEveryNode(selector)))
    selectors.forEach((selector, index) => {
      if (selectsEveryNode(selector))
        problems.warn(
          join(path, index),
          'a selector without criteria is ignored beside other selectors, as Shipyard does: it does not choose every node',
        );
    });
  return selectors;
}

function readSelector(value: unknown, path: string, problems: Problems): NodeSelector {
  const selector: NodeSelector = { node_names: [], node_tags: [], node_labels: [], rack_names: [] };
  if (!isObject(value)) {
    problems.add(path, 'a selector must be an object of node_names, node_tags, node_labels, rack_names');
    return selector;
  }
  if (Object.keys(value).length === 0)
    problems.add(
      path,
      "a selector needs at least one of node_names, node_tags, node_labels, rack_names (Shipyard's schema); for every node leave selectors empty",
    );
  problems.unknownFields(value, SELECTOR_FIELDS, path);
  selector.node_names = readStrings(value.node_names, join(path, 'node_names'), problems, false);
  selector.node_tags = readStrings(value.node_tags, join(path, 'node_tags'), problems, false);
  selector.rack_names = readStrings(value.rack_names, join(path, 'rack_names'), problems, false);
  selector.node_labels = readLabels(value.node_labels, join(path, 'node_labels'), problems);
  return selector;
}

/** Labels as Shipyard writes them (`key:value`), as `- key: value` entries, or as `key=value`. */
function readLabels(value: unknown, path: string, problems: Problems): Record<string, string>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.add(path, 'must be a list of labels, each "key: value" or "key=value"');
    return [];
  }
  const labels: Record<string, string>[] = [];
  value.forEach((entry, index) => {
    const shipyard = typeof entry === 'string' ? /^([^:=]+):([^:]+)$/.exec(entry) : null;
    const shipyardKey = shipyard?.[1]?.trim();
    const shipyardValue = shipyard?.[2]?.trim();
    if (shipyardKey && shipyardValue) labels.push({ [shipyardKey]: shipyardValue });
    else if (typeof entry === 'string' && /^[^=]+=.*$/.test(entry)) {
      const at = entry.indexOf('=');
      labels.push({ [entry.slice(0, at)]: entry.slice(at + 1) });
    } else if (
      isObject(entry) &&
      Object.keys(entry).length === 1 &&
      typeof Object.values(entry)[0] !== 'object'
    ) {
      const [[key, label]] = Object.entries(entry) as [[string, unknown]];
      labels.push({ [key]: String(label) });
    } else
      problems.add(
        join(path, index),
        'a label is a "key:value" string, one "key: value" entry or "key=value"',
      );
  });
  return labels;
}

function readCriteria(value: unknown, path: string, problems: Problems): SuccessCriteria | undefined {
  if (!isObject(value)) {
    problems.add(path, `must be an object of ${CRITERIA_FIELDS.join(', ')}`);
    return undefined;
  }
  problems.unknownFields(value, CRITERIA_FIELDS, path);
  if (Object.keys(value).length === 0)
    problems.add(
      path,
      `at least one of ${CRITERIA_FIELDS.join(', ')} (Shipyard's schema); leave success_criteria out for none`,
    );
  const criteria: SuccessCriteria = {};
  const percent = value.percent_successful_nodes;
  if (percent !== undefined && percent !== null) {
    if (!Number.isSafeInteger(percent) || (percent as number) < 0 || (percent as number) > 100)
      problems.add(join(path, 'percent_successful_nodes'), 'must be a whole number from 0 to 100');
    else criteria.percent_successful_nodes = percent as number;
  }
  for (const field of ['minimum_successful_nodes', 'maximum_failed_nodes'] as const) {
    const count = value[field];
    if (count === undefined || count === null) continue;
    if (!Number.isSafeInteger(count) || (count as number) < 0)
      problems.add(join(path, field), 'must be a whole number, 0 or more');
    else criteria[field] = count as number;
  }
  return criteria;
}
