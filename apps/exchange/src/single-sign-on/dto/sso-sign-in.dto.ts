import { ApiProperty } from '@nestjs/swagger';
import { IsString, IsUrl, Length, Matches, MaxLength } from 'class-validator';

const URL_RULE = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
/** RFC 7636: 43–128 characters of [A-Za-z0-9-._~]. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** What the console sends to start a sign-in: where the provider sends the browser back, and its PKCE challenge. */
export class SsoAuthorizeRequestDto {
  @ApiProperty({
    example: 'https://careen.example.com/sso/callback',
    description: 'registered at the provider',
  })
  @IsUrl(URL_RULE, { message: 'redirectUri must be an http(s) URL' })
  @MaxLength(2000)
  redirectUri!: string;

  @ApiProperty({ description: 'BASE64URL(SHA-256(code verifier)), RFC 7636 S256' })
  @Matches(PKCE_VALUE, { message: 'codeChallenge must be 43–128 characters of A-Z a-z 0-9 - . _ ~' })
  codeChallenge!: string;

  @ApiProperty({ description: 'random; comes back with the code' })
  @IsString()
  @Length(16, 512)
  state!: string;

  @ApiProperty({ description: 'random; comes back inside the identity token' })
  @IsString()
  @Length(16, 512)
  nonce!: string;
}

/** What the console sends back: the URL the provider redirected to, and the secrets only it kept. */
export class SsoCodeRequestDto {
  @ApiProperty({ description: 'the redirect URI with the query the provider added (code, state, iss)' })
  @IsUrl(URL_RULE, { message: 'callbackUrl must be an http(s) URL' })
  @MaxLength(4000)
  callbackUrl!: string;

  @ApiProperty({ description: 'the PKCE code verifier whose challenge started the sign-in' })
  @Matches(PKCE_VALUE, { message: 'codeVerifier must be 43–128 characters of A-Z a-z 0-9 - . _ ~' })
  codeVerifier!: string;

  @ApiProperty()
  @IsString()
  @Length(16, 512)
  state!: string;

  @ApiProperty()
  @IsString()
  @Length(16, 512)
  nonce!: string;
}

export class SsoDeviceTokenRequestDto {
  @ApiProperty({ description: 'the deviceCode of the device sign-in answer' })
  @IsString()
  @Length(1, 1024)
  deviceCode!: string;
}
