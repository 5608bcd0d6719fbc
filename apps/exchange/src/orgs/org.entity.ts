import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'orgs' })
export class OrgEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  label!: string;

  @Column({ name: 'upgrade_defaults', type: 'jsonb' })
  upgradeDefaults!: Record<string, unknown>;

  /** Whether the org's users may sign in with a password (single sign-on may replace it). */
  @Column({ name: 'password_login', type: 'boolean', default: true })
  passwordLogin!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
