import { SIGNING_ALGORITHM } from '@careen/auth';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class TokenResponse {
  @ApiProperty() accessToken!: string;
  @ApiProperty({ type: 'integer', description: 'seconds until the token expires' }) expiresIn!: number;

  @ApiPropertyOptional({
    description:
      'users only: renews the access token once (POST /v1/auth/token/refresh) until the login ends; POST /v1/auth/token/revoke ends the login',
  })
  refreshToken?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'users only: seconds until the login ends' })
  refreshExpiresIn?: number;
}

/** A public ES256 key, as RFC 7517 writes it: never a private member. */
export class JwkResponse {
  @ApiProperty({ example: 'EC' }) kty!: string;
  @ApiProperty({ example: 'P-256' }) crv!: string;
  @ApiProperty({ description: 'base64url' }) x!: string;
  @ApiProperty({ description: 'base64url' }) y!: string;
  @ApiProperty({ description: 'RFC 7638 thumbprint; the `kid` of every token the key signs' }) kid!: string;
  @ApiProperty({ enum: [SIGNING_ALGORITHM] }) alg!: string;
  @ApiProperty({ example: 'sig' }) use!: string;
}

export class JwksResponse {
  @ApiProperty({
    type: [JwkResponse],
    description: 'every key whose tokens may still be valid, newest first',
  })
  keys!: JwkResponse[];
}
