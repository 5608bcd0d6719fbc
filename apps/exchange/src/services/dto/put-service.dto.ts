import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsSemver } from './semver-rules';

export const SERVICE_URL_PATTERN = /^\S{1,256}$/;
export const ARCH_PATTERN = /^[a-z0-9_-]{1,32}$/;

/** PUT: creates the service or replaces every field of it. */
export class PutServiceDto {
  @ApiProperty({ example: 'acme.gateway', description: 'the service name; no whitespace, ≤ 256 characters' })
  @IsString()
  @Matches(SERVICE_URL_PATTERN, { message: 'url must be 1-256 characters without whitespace' })
  url!: string;

  @ApiProperty({ example: '1.4.2', description: 'a semantic version' })
  @IsSemver()
  version!: string;

  @ApiProperty({ example: 'amd64' })
  @IsString()
  @Matches(ARCH_PATTERN, { message: "arch must be 1-32 lowercase letters, digits, '_' or '-'" })
  arch!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'how the agent runs the service (runtime-specific object)',
    example: { kind: 'process', command: ['/opt/gateway/bin/gateway'] },
  })
  @IsObject()
  runtime!: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;
}
