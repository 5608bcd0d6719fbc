import { roleNamed, type Role } from '@careen/auth';
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryColumn({ type: 'text' })
  org!: string;

  @PrimaryColumn({ type: 'text' })
  username!: string;

  /** A row of the previous release may still say `user`: it is read as `operator`. */
  @Column({
    type: 'text',
    transformer: {
      to: (role: Role) => role,
      from: (stored: string) => roleNamed(stored) ?? stored,
    },
  })
  role!: Role;

  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
