import { type AgentUpgradePolicy, type ResumeWindow } from '@careen/contracts';
import { type Property } from '@careen/policy';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'management_policies' })
export class ManagementPolicyEntity {
  @PrimaryColumn({ type: 'text' })
  org!: string;

  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  owner!: string | null;

  @Column({ type: 'text' })
  label!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'jsonb' })
  constraints!: string[];

  @Column({ type: 'jsonb' })
  properties!: Property[];

  @Column({ type: 'text', array: true })
  patterns!: string[];

  @Column({ type: 'text', array: true })
  nodes!: string[];

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ name: 'agent_upgrade_policy', type: 'jsonb', nullable: true })
  agentUpgradePolicy!: AgentUpgradePolicy | null;

  @Column({ name: 'failure_threshold', type: 'integer', nullable: true })
  failureThreshold!: number | null;

  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason!: string | null;

  @Column({ name: 'last_updated', type: 'timestamptz' })
  lastUpdated!: Date;

  @Column({ type: 'boolean', default: false })
  paused!: boolean;

  @Column({ name: 'paused_at', type: 'timestamptz', nullable: true })
  pausedAt!: Date | null;

  @Column({ name: 'resume_window', type: 'jsonb', nullable: true })
  resumeWindow!: ResumeWindow | null;

  /** Failures reported before this do not count towards failureThreshold (set on re-enable). */
  @Column({ name: 'failures_counted_since', type: 'timestamptz', nullable: true })
  failuresCountedSince!: Date | null;
}
