import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { type StoredPolicy } from '../nodes/dto/policy.dto';
import { type PlacementMode } from './dto/put-deployment-policy.dto';

export interface DeploymentService {
  org: string;
  url: string;
  versionRange: string;
}

export interface Placement {
  mode: PlacementMode;
  replicas?: number;
}

@Entity({ name: 'deployment_policies' })
export class DeploymentPolicyEntity {
  @PrimaryColumn({ type: 'text' })
  org!: string;

  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text' })
  project!: string;

  @Column({ type: 'jsonb' })
  service!: DeploymentService;

  @Column({ type: 'jsonb' })
  properties!: StoredPolicy['properties'];

  @Column({ type: 'jsonb' })
  constraints!: string[];

  @Column({ type: 'jsonb' })
  placement!: Placement;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
