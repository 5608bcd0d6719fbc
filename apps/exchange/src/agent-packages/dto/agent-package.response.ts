import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { type AgentPackageEntity } from '../agent-package.entity';

export const AGENT_PACKAGE_TYPE = 'careen.agent-package';

export class AgentPackageManifestResponse {
  @ApiProperty({ example: '1.0.2' }) version!: string;
  @ApiPropertyOptional() packagesVersion?: string;
  @ApiPropertyOptional() sslVersion?: string;
  @ApiPropertyOptional() configVersion?: string;
}

/** An agent package as clients see it; its bytes are at `.../{version}/content`. */
export class AgentPackageResponse {
  @ApiProperty({ example: '1.0.2' }) version!: string;
  @ApiProperty({ type: AgentPackageManifestResponse }) manifest!: AgentPackageManifestResponse;
  @ApiProperty({ description: 'hex SHA-256 of the .tar.gz; also its ETag' }) sha256!: string;
  @ApiProperty({ type: 'integer', description: 'bytes of the .tar.gz' }) size!: number;
  @ApiPropertyOptional({ description: 'base64 ed25519 signature over the .tar.gz, as uploaded' })
  signature?: string;
  @ApiProperty({ enum: [AGENT_PACKAGE_TYPE] }) type!: typeof AGENT_PACKAGE_TYPE;
  @ApiProperty({ enum: [true], description: 'packages are readable from every org' }) public!: true;
  @ApiProperty({ example: 'root/root' }) uploadedBy!: string;
  @ApiProperty({ type: String, format: 'date-time' }) uploadedAt!: string;

  static from(entity: AgentPackageEntity): AgentPackageResponse {
    return {
      version: entity.version,
      manifest: { ...entity.manifest },
      sha256: entity.sha256,
      size: entity.size,
      ...(entity.signature ? { signature: entity.signature.toString('base64') } : {}),
      type: AGENT_PACKAGE_TYPE,
      public: true,
      uploadedBy: entity.uploadedBy,
      uploadedAt: entity.uploadedAt.toISOString(),
    };
  }
}

export class AgentPackageListResponse {
  @ApiProperty({ type: [AgentPackageResponse] }) items!: AgentPackageResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
