import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'services' })
export class ServiceEntity {
  @PrimaryColumn({ type: 'text' })
  org!: string;

  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text' })
  version!: string;

  @Column({ type: 'text' })
  arch!: string;

  @Column({ type: 'jsonb' })
  runtime!: Record<string, unknown>;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
