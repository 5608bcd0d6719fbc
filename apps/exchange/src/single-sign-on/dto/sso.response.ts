import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** How an org's users sign in: what the sign-in page offers. */
export class SsoOptionsResponse {
  @ApiProperty() org!: string;
  @ApiProperty({ description: 'whether a password sign-in is possible' }) passwordLogin!: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "the org's OpenID provider, null when it has none",
  })
  issuer!: string | null;
}

export class SsoAuthorizeResponse {
  @ApiProperty({ description: "where to send the browser: the provider's authorization endpoint" })
  authorizationUrl!: string;
}

/** RFC 8628's device authorization answer, to show the person who signs in. */
export class SsoDeviceResponse {
  @ApiProperty({ description: 'send it back to POST …/device/token; keep it to yourself' })
  deviceCode!: string;
  @ApiProperty({ example: 'WDJB-MJHT' }) userCode!: string;
  @ApiProperty({ description: 'where the person enters userCode' }) verificationUri!: string;
  @ApiPropertyOptional({ description: 'the same, with the code filled in' }) verificationUriComplete?: string;
  @ApiProperty({ type: 'integer', description: 'seconds until the code ends' }) expiresIn!: number;
  @ApiProperty({ type: 'integer', description: 'seconds to wait between two asks' }) interval!: number;
}
