import { allowedDown, type UnavailableLimit } from '@careen/disruption';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { gateDetails } from '../upgrades/upgrades.errors';
import { type DisruptionOutlook } from './disruption-outlook';

export class OutlookWindowResponse {
  @ApiProperty() name!: string;
  @ApiProperty() timeZone!: string;
  @ApiProperty({ description: 'a new step may start in it now (before its cutoff)' }) open!: boolean;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'when open: the last moment a step may start',
  })
  lastStart?: string;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when closed: when it next opens',
  })
  opensAt?: string | null;
}

export class OutlookFreezeResponse {
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, format: 'date-time' }) from!: string;
  @ApiProperty({ type: String, format: 'date-time' }) until!: string;
}

export class OutlookBudgetResponse {
  @ApiProperty() name!: string;
  @ApiProperty({ oneOf: [{ type: 'integer' }, { type: 'string' }] }) maxUnavailable!: UnavailableLimit;
  @ApiProperty({ type: 'integer', description: 'nodes it covers' }) covered!: number;
  @ApiProperty({ type: 'integer', description: 'nodes it lets be down at once' }) allowed!: number;
  @ApiProperty({ type: [String], description: 'covered nodes down now' }) down!: string[];
}

export class OutlookImpactedResponse {
  @ApiProperty() node!: string;
  @ApiProperty({ type: 'integer', description: "the group's instances it holds" }) instances!: number;
}

export class OutlookInstanceGroupResponse {
  @ApiProperty({ description: 'the group id its project declared (Fenix constraints API)' }) group!: string;
  @ApiProperty() project!: string;
  @ApiProperty({ type: 'integer', description: 'instances of the group that may be impacted at once' })
  maxImpacted!: number;
  @ApiProperty({ type: 'integer', description: "the group's instances on this node" }) own!: number;
  @ApiProperty({
    type: [OutlookImpactedResponse],
    description: 'other nodes down now with instances of the group',
  })
  impacted!: OutlookImpactedResponse[];
  @ApiProperty({ type: 'integer', description: 'seconds the group needs after a disruption before the next' })
  recoverySeconds!: number;
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    description: 'while the group recovers from the disruption of another of its nodes: until when',
  })
  recoversUntil?: string;
}

export class OutlookBusyResponse {
  @ApiProperty() reason!: string;
  @ApiProperty() declaredBy!: string;
  @ApiProperty({ type: String, format: 'date-time' }) until!: string;
}

export class DisruptionGateDetails {
  @ApiProperty({ enum: ['unreadable', 'freeze', 'outside-window', 'busy', 'gate', 'soak', 'budget'] })
  reason!: string;
  @ApiProperty() control!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true }) retryAt?: string | null;
  @ApiPropertyOptional({
    type: 'integer',
    description: 'a budget: the nodes it lets be down at once (an instance group: its instances)',
  })
  allowed?: number;
  @ApiPropertyOptional({ type: [String] }) holders?: string[];
  @ApiPropertyOptional({ description: 'the node whose step soaks (a soak)' }) soaking?: string;
}

/** `GET …/nodes/{node}/disruption`: what the disruption gate says of the node now. */
export class DisruptionOutlookResponse {
  @ApiProperty() node!: string;
  @ApiProperty({ type: String, nullable: true }) haGroup!: string | null;
  @ApiProperty({ type: String, format: 'date-time', description: "the agbot's database clock" }) at!: string;
  @ApiProperty({
    description: 'freezes, windows, budgets and instance groups let a new disruption start now',
  })
  mayStart!: boolean;
  @ApiPropertyOptional({ type: DisruptionGateDetails, description: 'why not, when it may not' })
  refusal?: DisruptionGateDetails;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'when freezes and windows next let a disruption start (at, when they do now); null: not within a year',
  })
  nextStart!: string | null;
  @ApiProperty({ type: [OutlookWindowResponse] }) windows!: OutlookWindowResponse[];
  @ApiProperty({ type: [OutlookFreezeResponse] }) freezes!: OutlookFreezeResponse[];
  @ApiProperty({ type: [OutlookBudgetResponse] }) budgets!: OutlookBudgetResponse[];
  @ApiProperty({
    type: [OutlookInstanceGroupResponse],
    description:
      'the instance groups declared by VNF managers with instances on the node: each a budget of its instances',
  })
  instanceGroups!: OutlookInstanceGroupResponse[];
  @ApiPropertyOptional({
    type: OutlookBusyResponse,
    description: "the node's busy declaration, while it lasts",
  })
  busy?: OutlookBusyResponse;

  static from(outlook: DisruptionOutlook): DisruptionOutlookResponse {
    return {
      node: outlook.node.id,
      haGroup: outlook.node.haGroup,
      at: outlook.at.toISOString(),
      mayStart: outlook.refusal === undefined,
      ...(outlook.refusal && {
        refusal: { ...gateDetails(outlook.refusal), message: outlook.refusal.message },
      }),
      nextStart: outlook.nextStart?.toISOString() ?? null,
      windows: outlook.windows.map(({ window, state }) => ({
        name: window.name,
        timeZone: window.timeZone,
        open: state.open,
        ...(state.open
          ? { lastStart: state.lastStart.toISOString() }
          : { opensAt: state.opensAt?.toISOString() ?? null }),
      })),
      freezes: outlook.freezes.map(({ name, from, until }) => ({ name, from, until })),
      ...(outlook.busy && {
        busy: {
          reason: outlook.busy.reason,
          declaredBy: outlook.busy.declaredBy,
          until: outlook.busy.until.toISOString(),
        },
      }),
      budgets: outlook.budgets.map(({ budget, covered, down }) => ({
        name: budget.name,
        maxUnavailable: budget.maxUnavailable,
        covered,
        allowed: allowedDown(budget.maxUnavailable, covered),
        down,
      })),
      instanceGroups: outlook.instanceGroups.map(
        ({ group, project, maxImpacted, own, impacted, recoverySeconds, lastEnded }) => ({
          group,
          project,
          maxImpacted,
          own,
          impacted,
          recoverySeconds,
          ...(lastEnded && {
            recoversUntil: new Date(Date.parse(lastEnded.at) + recoverySeconds * 1000).toISOString(),
          }),
        }),
      ),
    };
  }
}
