import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A message waiting to be published, written in the same transaction as the change it
 * describes. `seq` is assigned by the relay once the writing transaction is known to be
 * committed, so `seq` follows commit order; it becomes the message id on the bus.
 */
@Entity({ name: 'outbox' })
export class OutboxMessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'bigint', nullable: true })
  seq!: string | null;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Column({ type: 'jsonb', default: {} })
  headers!: Record<string, string>;

  @Column({ name: 'created_at', type: 'timestamptz', insert: false, update: false })
  createdAt!: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;
}
