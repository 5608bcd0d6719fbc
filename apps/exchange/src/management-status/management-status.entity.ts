import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** How one node is doing with one management policy; written by the node. */
@Entity({ name: 'management_statuses' })
export class ManagementStatusEntity {
  @PrimaryColumn({ type: 'text' })
  org!: string;

  @PrimaryColumn({ type: 'text' })
  node!: string;

  @PrimaryColumn({ type: 'text' })
  nmp!: string;

  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'text', nullable: true })
  version!: string | null;

  @Column({ name: 'start_time', type: 'timestamptz', nullable: true })
  startTime!: Date | null;

  @Column({ name: 'end_time', type: 'timestamptz', nullable: true })
  endTime!: Date | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** The node's attempt at the policy this status belongs to: 1, 2, … */
  @Column({ type: 'integer', default: 1 })
  attempt!: number;

  /** The version the node ran when the attempt began. */
  @Column({ name: 'from_version', type: 'text', nullable: true })
  fromVersion!: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
