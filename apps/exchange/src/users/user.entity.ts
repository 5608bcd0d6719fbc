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

  /** A user who signs in through single sign-on has a hash no password matches. */
  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  /** The issuer of the OpenID provider the user signs in through; null for a local user. */
  @Column({ name: 'identity_provider', type: 'text', nullable: true })
  identityProvider!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
