import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsString,
  MaxLength,
  MinLength,
  registerDecorator,
  ValidateIf,
  type ValidationArguments,
} from 'class-validator';

const USER_FIELDS = ['username', 'password'] as const;
const NODE_FIELDS = ['node', 'token'] as const;
const SHAPES = '{org, username, password} or {org, node, token}';

type CredentialFields = Partial<Record<(typeof USER_FIELDS)[number] | (typeof NODE_FIELDS)[number], unknown>>;

const present = (request: CredentialFields, fields: readonly (keyof CredentialFields)[]) =>
  fields.some((field) => request[field] !== undefined);
/** The node shape is chosen by sending `node` or `token`; otherwise the request is a user's. */
const isNodeRequest = (request: CredentialFields) => present(request, NODE_FIELDS);
const isUserRequest = (request: CredentialFields) => present(request, USER_FIELDS) || !isNodeRequest(request);

/** Refuses a node field next to a user field: the request must be one shape or the other. */
function NotMixedWithUserFields(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'notMixedWithUserFields',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          !present(args.object as CredentialFields, USER_FIELDS),
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} cannot be combined with username or password: send ${SHAPES}`,
      },
    });
}

/** `{org, username, password}` for a user or `{org, node, token}` for a node, never a mixture. */
export class TokenRequestDto {
  @ApiProperty({ example: 'acme' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  org!: string;

  @ApiPropertyOptional({ example: 'alice', description: 'with password, for a user' })
  @ValidateIf(isUserRequest)
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  username?: string;

  @ApiPropertyOptional()
  @ValidateIf(isUserRequest)
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  password?: string;

  @ApiPropertyOptional({ example: 'edge-17', description: 'with token, for a node' })
  @ValidateIf(isNodeRequest)
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  @NotMixedWithUserFields()
  node?: string;

  @ApiPropertyOptional({ description: 'the node token' })
  @ValidateIf(isNodeRequest)
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  @NotMixedWithUserFields()
  token?: string;
}
