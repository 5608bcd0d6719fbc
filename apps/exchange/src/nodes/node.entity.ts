import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { type StoredPolicy } from './dto/policy.dto';

/** What the node itself reports; written only through its status route. */
export interface NodeStatus {
  lastHeartbeat: string;
  agentVersion?: {
    package?: string;
    failed?: string | null;
    upgradeStart?: string | null;
    upgradeEnd?: string | null;
  };
  workloads: ActualWorkload[];
}

export interface ActualWorkload {
  deploymentPolicy?: string;
  service: { org: string; url: string; version: string };
  state?: string;
}

/** A workload the agbot wants on the node. */
export interface DesiredWorkload {
  deploymentPolicy: string;
  service: { org: string; url: string; version: string };
}

@Entity({ name: 'nodes' })
export class NodeEntity {
  @PrimaryColumn({ type: 'text' })
  org!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  /** "org/username" of the user who registered the node, or null. */
  @Column({ type: 'text', nullable: true })
  owner!: string | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ type: 'text', nullable: true })
  pattern!: string | null;

  @Column({ type: 'jsonb' })
  policy!: StoredPolicy;

  @Column({ type: 'jsonb' })
  labels!: Record<string, string>;

  @Column({ type: 'text', array: true })
  tags!: string[];

  @Column({ type: 'text', nullable: true })
  rack!: string | null;

  @Column({ name: 'ha_group', type: 'text', nullable: true })
  haGroup!: string | null;

  @Column({ type: 'boolean' })
  schedulable!: boolean;

  @Column({ type: 'jsonb', nullable: true })
  maintenance!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  status!: NodeStatus | null;

  @Column({ name: 'desired_workloads', type: 'jsonb' })
  desiredWorkloads!: DesiredWorkload[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
