/**
 * `careen strategy validate|publish|list|show|plan`: deployment strategies (Shipyard's
 * DeploymentStrategy, YAML or JSON). `validate` reads the file here, with the same rules as the
 * orchestrator, and needs no hub.
 */
import { type DeploymentOrchestrator } from '@careen/api-client';
import {
  dependencyStages,
  type DeploymentStrategy,
  readStrategy,
  type StrategyProblem,
  yamlErrorMessage,
} from '@careen/contracts';
import { type Command, InvalidArgumentError } from 'commander';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { CliError } from '../cli-errors';
import { formatColumns } from '../output/output';
import { type CliServices, contextOf } from './command-context';
import { ORCHESTRATOR_URL_OPTION, orchestratorContext } from './orchestrator-service';

type Schemas = DeploymentOrchestrator.components['schemas'];

export function positiveWhole(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('a whole number, 1 or more');
  return parsed;
}

/**
 * The strategy in a YAML or JSON file, checked; every problem named with its path, and what
 * is accepted but suspicious as warnings.
 */
export async function readStrategyFile(
  file: string,
): Promise<{ strategy: DeploymentStrategy; warnings: StrategyProblem[] }> {
  let document: unknown;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message.split('\n')[0]}`);
  }
  try {
    document = parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${yamlErrorMessage(error, text)}`);
  }
  const reading = readStrategy(document);
  if ('problems' in reading)
    throw new CliError(`${file} is not a valid deployment strategy`, reading.problems.map(describeProblem));
  return reading;
}

const describeProblem = (each: StrategyProblem) => `${each.path || '(document)'}: ${each.problem}`;

const warningLines = (warnings: readonly string[]) => warnings.map((line) => `warning: ${line}\n`).join('');

const CRITERIA = ['percent_successful_nodes', 'minimum_successful_nodes', 'maximum_failed_nodes'] as const;

function describeStages(stages: readonly string[][]): string {
  return stages.map((stage, index) => `  ${index + 1}. ${stage.join(', ')}`).join('\n');
}

export function registerStrategyCommands(program: Command, services: CliServices): void {
  const strategy = program
    .command('strategy')
    .description('deployment strategies: groups of nodes rolled in dependency order (Shipyard)')
    .option(...ORCHESTRATOR_URL_OPTION);

  strategy
    .command('validate')
    .description('check a strategy file (YAML or JSON) here, without the hub; exits 1 naming every problem')
    .argument('<file>', 'the strategy')
    .action(async (file: string, _options: object, command: Command) => {
      const { strategy: found, warnings } = await readStrategyFile(file);
      const stages = dependencyStages(found.groups);
      const { printer, io } = contextOf(command, services);
      if (printer.format === 'json') printer.record({ valid: true, name: found.name, stages, warnings });
      else
        io.stdout.write(
          `${file}: strategy "${found.name}" is valid: ${found.groups.length} group(s) in ${stages.length} stage(s)\n${describeStages(stages)}\n` +
            warningLines(warnings.map(describeProblem)),
        );
    });

  strategy
    .command('publish')
    .description('publish a strategy file; a changed strategy becomes a new version')
    .argument('<file>', 'the strategy (YAML, e.g. a Shipyard document, or JSON)')
    .option('--org <org>', 'org (hub admins; default: your own)')
    .action(async (file: string, options: { org?: string }, command: Command) => {
      const { strategy: document } = await readStrategyFile(file);
      const { context, ask } = await orchestratorContext(command, services);
      const stored = await ask((api) =>
        api.POST('/v1/strategies', {
          params: { query: { org: options.org } },
          body: { ...document },
        }),
      );
      context.printer.result(
        stored,
        (stored.created
          ? `published strategy "${stored.name}" version ${stored.version}`
          : `strategy "${stored.name}" is unchanged: version ${stored.version}`) +
          (stored.warnings.length > 0
            ? `\n${warningLines(stored.warnings.map(describeProblem)).trimEnd()}`
            : ''),
      );
    });

  strategy
    .command('list')
    .description("the org's strategies, each at its newest version")
    .option('--org <org>', 'org (hub admins; default: your own)')
    .action(async (options: { org?: string }, command: Command) => {
      const { context, ask } = await orchestratorContext(command, services);
      const answer = await ask((api) =>
        api.GET('/v1/strategies', { params: { query: { org: options.org } } }),
      );
      context.printer.list(
        answer,
        [
          { header: 'NAME', value: (row) => row.name },
          { header: 'VERSION', value: (row) => row.version },
          { header: 'GROUPS', value: (row) => row.groups.length },
          { header: 'STAGES', value: (row) => row.stages.length },
          { header: 'PUBLISHED', value: (row) => `${row.created_at} by ${row.created_by}` },
        ],
        'no strategies',
      );
    });

  strategy
    .command('show')
    .description('a strategy: its groups, dependencies, selectors and criteria')
    .argument('<name>', 'strategy name')
    .option('--strategy-version <n>', 'this version of it (default: the newest)', positiveWhole)
    .option('--org <org>', 'org (hub admins; default: your own)')
    .action(async (name: string, options: { strategyVersion?: number; org?: string }, command: Command) => {
      const { context, ask } = await orchestratorContext(command, services);
      const stored = await ask((api) =>
        api.GET('/v1/strategies/{name}', {
          params: { path: { name }, query: { version: options.strategyVersion, org: options.org } },
        }),
      );
      if (context.printer.format === 'json') return context.printer.record(stored);
      context.io.stdout.write(
        `strategy ${stored.name} version ${stored.version} (${stored.created_at} by ${stored.created_by})\n` +
          `stages:\n${describeStages(stored.stages)}\n\n` +
          formatColumns(
            [
              { header: 'GROUP', value: (row: Schemas['StrategyGroupResponse']) => row.name },
              { header: 'CRITICAL', value: (row) => (row.critical ? 'yes' : 'no') },
              { header: 'DEPENDS ON', value: (row) => row.depends_on.join(', ') },
              { header: 'SELECTORS', value: (row) => row.selectors.length || 'all nodes' },
              {
                header: 'SUCCESS CRITERIA',
                value: (row) =>
                  CRITERIA.filter((key) => row.success_criteria?.[key] !== undefined)
                    .map((key) => `${key} ${row.success_criteria![key]}`)
                    .join(', '),
              },
            ],
            stored.groups,
          ),
      );
    });

  strategy
    .command('plan')
    .description(
      "dry run over the org's nodes now: stages, each group's nodes and HA groups, overlaps and gaps",
    )
    .argument('<name>', 'strategy name')
    .option('--strategy-version <n>', 'this version of it (default: the newest)', positiveWhole)
    .option('--org <org>', 'org (hub admins; default: your own)')
    .action(async (name: string, options: { strategyVersion?: number; org?: string }, command: Command) => {
      const { context, ask } = await orchestratorContext(command, services);
      const plan = await ask((api) =>
        api.POST('/v1/strategies/{name}/plan', {
          params: { path: { name }, query: { version: options.strategyVersion, org: options.org } },
        }),
      );
      if (context.printer.format === 'json') return context.printer.record(plan);
      const warnings = [
        ...plan.warnings,
        ...plan.groups
          .filter((group) => group.never_passes)
          .map((group) => `group ${group.name} can never pass: ${group.never_passes}`),
        ...plan.overlapping.map(
          (each) =>
            `node ${each.node} is in groups ${each.groups.join(', ')}: sent by ${each.sent_by} only, counted by all`,
        ),
        ...(plan.unselected.length > 0
          ? [`${plan.unselected.length} node(s) in no group: ${plan.unselected.join(', ')}`]
          : []),
      ];
      context.io.stdout.write(
        `plan of ${plan.strategy} version ${plan.version}\nstages:\n${describeStages(plan.stages)}\n\n` +
          formatColumns(
            [
              {
                header: 'GROUP',
                value: (row: Schemas['PlannedGroupResponse']) => `${row.name}${row.critical ? ' *' : ''}`,
              },
              { header: 'NODES', value: (row) => row.nodes.length },
              { header: 'SENDS', value: (row) => row.sends.length },
              { header: 'HA GROUPS', value: (row) => row.ha_groups.join(', ') },
              {
                header: 'FIRST NODES',
                value: (row) => row.nodes.slice(0, 5).join(', ') + (row.nodes.length > 5 ? ', …' : ''),
              },
            ],
            plan.groups,
          ) +
          (warnings.length > 0 ? `\n${warningLines(warnings)}` : ''),
      );
    });
}
