/** What the rollout routes answer: the report that `rolloutView` builds, group by group and node by node. */
import { ApiProperty } from '@nestjs/swagger';
import { GROUP_PHASES, type GroupPhase, NODE_STATES, type NodeState } from '../rollout-engine';
import { ROLLOUT_STATES, type RolloutState } from '../rollout-record';
import { type GroupReport, type NodeReport, type RolloutView } from '../rollout-view';

const STAGES = { type: 'array', items: { type: 'array', items: { type: 'string' } } } as const;

export class RolloutGroupResponse implements GroupReport {
  @ApiProperty() name!: string;
  @ApiProperty() critical!: boolean;
  @ApiProperty({ type: [String] }) depends_on!: string[];
  @ApiProperty({ enum: GROUP_PHASES }) phase!: GroupPhase;
  @ApiProperty({ type: String, nullable: true, description: 'why the group failed' })
  reason!: string | null;
  @ApiProperty({ type: [String] }) ha_groups!: string[];
  @ApiProperty({ type: 'integer', description: "the group's nodes" }) nodes!: number;
  @ApiProperty({ type: 'integer', description: 'of them, prepared and not yet deployed' }) prepared!: number;
  @ApiProperty({ type: 'integer', description: 'of them, deployed successfully' }) successful!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

export class RolloutNodeResponse implements NodeReport {
  @ApiProperty() node!: string;
  @ApiProperty({ enum: NODE_STATES }) state!: NodeState;
  @ApiProperty({ type: String, nullable: true, description: 'the group that last sent it' })
  group!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "the last management status its agent reported for the phase under way; `soaking` once it reported success while an alert gate's soak of its step lasts, `soak-failed` when an alert fired during it",
  })
  status!: string | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sent_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) prepared_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

/** How many of the rollout's nodes are in each state. */
export class RolloutCountsResponse implements Record<keyof RolloutView['counts'], number> {
  @ApiProperty({ type: 'integer' }) nodes!: number;
  @ApiProperty({ type: 'integer' }) 'not started'!: number;
  @ApiProperty({ type: 'integer' }) prepared!: number;
  @ApiProperty({ type: 'integer' }) success!: number;
  @ApiProperty({ type: 'integer' }) failure!: number;
}

/** A rollout without its nodes, as the list shows it. */
export class RolloutSummaryResponse implements Omit<RolloutView, 'nodes'> {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() org!: string;
  @ApiProperty() strategy!: string;
  @ApiProperty({ type: 'integer' }) strategy_version!: number;
  @ApiProperty({ description: 'the agent version the nodes are taken to' }) version!: string;
  @ApiProperty({ description: 'nodes running a higher version are taken down to it (a rollback)' })
  allow_downgrade!: boolean;
  @ApiProperty({ enum: ROLLOUT_STATES }) state!: RolloutState;
  @ApiProperty({ type: String, nullable: true, description: 'why it failed, or which groups failed' })
  reason!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the group being prepared or deployed' })
  current_group!: string | null;
  @ApiProperty({ type: 'integer' }) phase_timeout_seconds!: number;
  @ApiProperty({ ...STAGES, description: 'group names stage by stage' }) stages!: string[][];
  @ApiProperty({ type: RolloutCountsResponse }) counts!: RolloutCountsResponse;
  @ApiProperty({
    type: [String],
    description:
      'what its plan warned of when it started: groups without nodes, nodes another policy upgrades',
  })
  warnings!: string[];
  @ApiProperty({ type: [RolloutGroupResponse] }) groups!: RolloutGroupResponse[];
  @ApiProperty() created_by!: string;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
}

/** A rollout's full report: the summary and every node it holds. */
export class RolloutResponse extends RolloutSummaryResponse implements RolloutView {
  @ApiProperty({ type: [RolloutNodeResponse] }) nodes!: RolloutNodeResponse[];
}

export class RolloutListResponse {
  @ApiProperty({ type: [RolloutSummaryResponse] }) items!: RolloutSummaryResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
