/** What the strategy routes answer: a stored version as `strategyView` shows it, and a dry run's plan. */
import {
  type NodeSelector,
  type StrategyGroup,
  type StrategyProblem,
  type SuccessCriteria,
} from '@careen/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type PlannedGroup, type StrategyPlan } from '../strategy-plan';
import { type StrategyView } from '../strategy-view';

const STAGES = {
  type: 'array',
  items: { type: 'array', items: { type: 'string' } },
  description: 'group names stage by stage: a stage runs once every earlier one has succeeded',
} as const;

/** Every list is there, empty when the document left it out. */
export class NodeSelectorResponse implements NodeSelector {
  @ApiProperty({ type: [String] }) node_names!: string[];
  @ApiProperty({ type: [String] }) node_tags!: string[];
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: { type: 'string' } },
    description: 'each entry one label, `{key: value}`',
  })
  node_labels!: Record<string, string>[];
  @ApiProperty({ type: [String] }) rack_names!: string[];
}

/** Only the criteria the document gave. */
export class SuccessCriteriaResponse implements SuccessCriteria {
  @ApiPropertyOptional({ minimum: 0, maximum: 100 }) percent_successful_nodes?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0 }) minimum_successful_nodes?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0 }) maximum_failed_nodes?: number;
}

export class StrategyGroupResponse implements StrategyGroup {
  @ApiProperty() name!: string;
  @ApiProperty() critical!: boolean;
  @ApiProperty({ type: [String] }) depends_on!: string[];
  @ApiProperty({ type: [NodeSelectorResponse], description: 'united; none means every node of the org' })
  selectors!: NodeSelectorResponse[];
  @ApiPropertyOptional({ type: SuccessCriteriaResponse, description: 'absent when the document gave none' })
  success_criteria?: SuccessCriteriaResponse;
}

export class StrategyResponse implements StrategyView {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: 'integer' }) version!: number;
  @ApiProperty({ type: [StrategyGroupResponse] }) groups!: StrategyGroupResponse[];
  @ApiProperty(STAGES) stages!: string[][];
  @ApiProperty() created_by!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
}

export class StrategyWarningResponse implements StrategyProblem {
  @ApiProperty({ description: 'where in the document, e.g. `data.groups[1].selectors[0]`' }) path!: string;
  @ApiProperty({ description: 'what Careen does with it' }) problem!: string;
}

export class PublishedStrategyResponse extends StrategyResponse {
  @ApiProperty({ description: 'false when the newest version was the same document: nothing was stored' })
  created!: boolean;
  @ApiProperty({
    type: [StrategyWarningResponse],
    description:
      'what Shipyard accepts but is suspicious: keys no one reads, no groups, selectors without criteria beside others',
  })
  warnings!: StrategyWarningResponse[];
}

export class StrategyListResponse {
  @ApiProperty({ type: [StrategyResponse] }) items!: StrategyResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class PlannedGroupResponse implements PlannedGroup {
  @ApiProperty() name!: string;
  @ApiProperty() critical!: boolean;
  @ApiProperty({ type: [String] }) depends_on!: string[];
  @ApiProperty({ type: [String], description: 'every node it chooses: its criteria are judged on all' })
  nodes!: string[];
  @ApiProperty({
    type: [String],
    description: 'of them, the nodes it sends: those no earlier group in processing order chooses',
  })
  sends!: string[];
  @ApiProperty({ type: [String] }) ha_groups!: string[];
  @ApiPropertyOptional({ description: "set only when the group's criteria cannot pass on its nodes" })
  never_passes?: string;
}

export class OverlappingNodeResponse {
  @ApiProperty() node!: string;
  @ApiProperty({ type: [String], description: 'the groups that choose it' }) groups!: string[];
  @ApiProperty({ description: 'the one that sends it: the first of them in processing order' })
  sent_by!: string;
}

export class StrategyPlanResponse implements StrategyPlan {
  @ApiProperty({ description: "the strategy's name" }) strategy!: string;
  @ApiProperty({ type: 'integer', description: 'the version planned' }) version!: number;
  @ApiProperty({ ...STAGES, description: 'group names stage by stage: the processing order' })
  stages!: string[][];
  @ApiProperty({ type: [PlannedGroupResponse] }) groups!: PlannedGroupResponse[];
  @ApiProperty({
    type: [OverlappingNodeResponse],
    description: 'nodes chosen by more than one group (each is sent once, by the first in processing order)',
  })
  overlapping!: OverlappingNodeResponse[];
  @ApiProperty({ type: [String], description: 'nodes of the org that no group chooses' })
  unselected!: string[];
  @ApiProperty({
    type: [String],
    description: 'groups that choose no node: they pass whatever their criteria, as in Shipyard',
  })
  empty!: string[];
  @ApiProperty({
    type: [String],
    description:
      'what to know before starting: groups without nodes, ignored selectors, nodes another management policy already upgrades',
  })
  warnings!: string[];
}
