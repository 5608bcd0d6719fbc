import { ROLES, type Role } from '@careen/auth';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayContains,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';

export const DEFAULT_SCOPES = ['openid', 'profile', 'email'];
export const DEFAULT_GROUPS_CLAIM = 'groups';
export const DEFAULT_USERNAME_CLAIM = 'preferred_username';
/** RFC 6749's scope token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;
const CLAIM_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

export class RoleMappingDto {
  @ApiProperty({ example: 'careen-operators', description: 'a group as the groups claim names it' })
  @IsString()
  @Length(1, 256)
  group!: string;

  @ApiProperty({ enum: ROLES, description: "hubAdmin only in the hub's own org, root" })
  @IsIn(ROLES, { message: `role must be one of: ${ROLES.join(', ')}` })
  role!: Role;
}

/** An org's OpenID provider: who signs its users in, and which of their groups give which role. */
export class IdentityProviderDto {
  @ApiProperty({
    example: 'https://login.example.com/realms/ops',
    description: 'discovered at /.well-known/openid-configuration',
  })
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'issuer must be an http(s) URL' },
  )
  @MaxLength(2000)
  issuer!: string;

  @ApiProperty({ example: 'careen', description: 'the client registered at the provider for Careen' })
  @IsString()
  @Length(1, 256)
  clientId!: string;

  @ApiPropertyOptional({
    description:
      'for a confidential client; never answered back. Without it Careen is a public client, with PKCE',
    writeOnly: true,
  })
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  clientSecret?: string;

  @ApiPropertyOptional({ type: [String], default: DEFAULT_SCOPES, description: 'must hold openid' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @ArrayUnique()
  @Matches(SCOPE_TOKEN, {
    each: true,
    message: 'each value in scopes must be a scope name, with no space or quote',
  })
  @ArrayContains(['openid'], { message: 'scopes must hold openid' })
  scopes?: string[];

  @ApiPropertyOptional({
    default: DEFAULT_GROUPS_CLAIM,
    description: 'the identity token claim that lists the groups',
  })
  @IsOptional()
  @Matches(CLAIM_NAME, { message: 'groupsClaim must be a claim name' })
  groupsClaim?: string;

  @ApiPropertyOptional({
    default: DEFAULT_USERNAME_CLAIM,
    description: 'the claim that names the user in Careen',
  })
  @IsOptional()
  @Matches(CLAIM_NAME, { message: 'usernameClaim must be a claim name' })
  usernameClaim?: string;

  @ApiProperty({
    type: [RoleMappingDto],
    description: 'a person gets the most powerful role any of their groups is mapped to; in none, no access',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => RoleMappingDto)
  roleMappings!: RoleMappingDto[];

  @ApiPropertyOptional({
    default: true,
    description:
      "whether the org's users may still sign in with a password (the hub admin root/root always may)",
  })
  @IsOptional()
  @IsBoolean()
  passwordLogin?: boolean;
}
