import { type UnavailableLimit } from '@careen/disruption';
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'ha_groups' })
export class HaGroupEntity {
  @PrimaryColumn({ type: 'text' })
  org!: string;

  @PrimaryColumn({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  /** How many members may be disrupted at once: a count or a percentage; one when null. */
  @Column({ name: 'max_unavailable', type: 'jsonb', nullable: true })
  maxUnavailable!: UnavailableLimit | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
