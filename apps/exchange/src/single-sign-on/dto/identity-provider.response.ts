import { ROLES, type Role } from '@careen/auth';
import { ApiProperty } from '@nestjs/swagger';

class RoleMappingResponse {
  @ApiProperty() group!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
}

/** An org's OpenID provider as configured; the client secret only as whether there is one. */
export class IdentityProviderResponse {
  @ApiProperty() org!: string;
  @ApiProperty() issuer!: string;
  @ApiProperty() clientId!: string;
  @ApiProperty({ description: 'whether a client secret is kept (it is never answered)' })
  clientSecretSet!: boolean;
  @ApiProperty({ type: [String] }) scopes!: string[];
  @ApiProperty() groupsClaim!: string;
  @ApiProperty() usernameClaim!: string;
  @ApiProperty({ type: [RoleMappingResponse] }) roleMappings!: RoleMappingResponse[];
  @ApiProperty() passwordLogin!: boolean;
  @ApiProperty() updatedBy!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}
