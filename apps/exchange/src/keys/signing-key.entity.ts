import { type JWK } from 'jose';
import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'signing_keys' })
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'text' })
  kid!: string;

  @Column({ name: 'private_jwk', type: 'jsonb' })
  privateJwk!: JWK;

  @Column({ name: 'public_jwk', type: 'jsonb' })
  publicJwk!: JWK;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
