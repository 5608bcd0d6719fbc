import { SCOPES, type Scope } from '@careen/auth';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export const KEY_STATES = ['active', 'expired', 'revoked'] as const;
export type KeyState = (typeof KEY_STATES)[number];

/** A key as clients see it: never its secret or digest. */
export class ApiKeyResponse {
  @ApiProperty({ example: '3f9a1c07d2e4b851' }) id!: string;
  @ApiProperty({ type: [String], enum: SCOPES }) scopes!: Scope[];
  @ApiProperty({
    type: [String],
    nullable: true,
    description: 'the projects it is limited to (routes of one project only); null: the whole org',
  })
  projects!: string[] | null;
  @ApiProperty({ enum: KEY_STATES }) state!: KeyState;
  @ApiProperty({ type: String, format: 'date-time' }) expiresAt!: string;
  @ApiProperty() createdBy!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revokedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the key that replaced it by rotation' })
  replacedBy!: string | null;
}

/** A new key, with the key itself: shown this once. */
export class NewApiKeyResponse extends ApiKeyResponse {
  @ApiProperty({ description: 'send it as `Authorization: Bearer <key>`; shown only now', example: 'ck_…' })
  key!: string;
}

export class RotatedApiKeyResponse {
  @ApiProperty({ type: NewApiKeyResponse }) key!: NewApiKeyResponse;
  @ApiProperty({ type: ApiKeyResponse, description: 'the previous key, now ending at the overlap' })
  previous!: ApiKeyResponse;
}

export class ServiceAccountResponse {
  @ApiProperty() org!: string;
  @ApiProperty() name!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) description!: string | null;
  @ApiProperty() createdBy!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({
    type: [ApiKeyResponse],
    description: 'its keys, newest first, revoked and expired ones too',
  })
  keys!: ApiKeyResponse[];
}

export class ServiceAccountListResponse {
  @ApiProperty({ type: [ServiceAccountResponse] }) items!: ServiceAccountResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
