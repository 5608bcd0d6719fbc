import { ApiProperty } from '@nestjs/swagger';
import { type HaltedMember } from '../halted-members';

/** A failed member of the removed policy: its HA group stays halted until the halt is reset. */
export class HaltedMemberResponse {
  @ApiProperty() haGroup!: string;
  @ApiProperty({ description: 'the member that failed and is not healthy again' }) node!: string;
  @ApiProperty({ description: 'its last status for the policy: failed, rolling-back or rollback-failed' })
  status!: string;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;

  static from(member: HaltedMember): HaltedMemberResponse {
    return { haGroup: member.haGroup, node: member.node, status: member.status, error: member.error };
  }
}

export class PolicyRemovedResponse {
  @ApiProperty() nmp!: string;
  @ApiProperty({
    type: [HaltedMemberResponse],
    description:
      "the HA groups the removal leaves halted, by the member that failed: the agbot's POST /v1/orgs/{org}/upgrade-groups/{haGroup}/reset ends each halt",
  })
  leftHalted!: HaltedMemberResponse[];
}
