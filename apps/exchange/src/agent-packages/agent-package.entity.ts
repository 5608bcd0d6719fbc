import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { type AgentPackageManifest } from './package-archive';

const bigintAsNumber = {
  to: (value: number) => value,
  from: (value: string | number) => Number(value),
};

/** One uploaded agent package; its bytes live in `agent_package_chunks`. */
@Entity({ name: 'agent_packages' })
export class AgentPackageEntity {
  @PrimaryColumn({ type: 'text' })
  version!: string;

  /** The version without build metadata: two packages of equal semver precedence cannot coexist. */
  @Column({ type: 'text' })
  precedence!: string;

  @Column({ type: 'jsonb' })
  manifest!: AgentPackageManifest;

  @Column({ type: 'text' })
  sha256!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  size!: number;

  @Column({ name: 'chunk_size', type: 'integer' })
  chunkSize!: number;

  @Column({ type: 'bytea', nullable: true })
  signature!: Buffer | null;

  @Column({ name: 'uploaded_by', type: 'text' })
  uploadedBy!: string;

  @CreateDateColumn({ name: 'uploaded_at', type: 'timestamptz' })
  uploadedAt!: Date;
}
