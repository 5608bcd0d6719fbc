import { ApiProperty } from '@nestjs/swagger';

class PlacedServiceResponse {
  @ApiProperty() org!: string;
  @ApiProperty() url!: string;
  @ApiProperty() version!: string;
}

/** One workload the agbot wants the node to run. */
export class PlacedWorkloadResponse {
  @ApiProperty() deploymentPolicy!: string;
  @ApiProperty({ type: PlacedServiceResponse }) service!: PlacedServiceResponse;
}

/** What placement last decided for one node, and in which state of the node it decided it. */
export class NodePlacementResponse {
  @ApiProperty() node!: string;
  @ApiProperty({
    description:
      'whether the node was schedulable when these workloads were placed: after an uncordon, true only once a placement round has taken the uncordon in',
  })
  schedulable!: boolean;
  @ApiProperty({ type: [PlacedWorkloadResponse], description: 'the desired workloads, by deployment policy' })
  workloads!: PlacedWorkloadResponse[];
  @ApiProperty({ description: 'the exchange has these workloads (the node can fetch them)' })
  delivered!: boolean;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'when placement last changed them; null when it never placed anything on the node',
  })
  placedAt!: string | null;
}
