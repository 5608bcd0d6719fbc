import { AllowNodes, CurrentPrincipal, OpenToAnyKey, ROLES, SCOPES, type Principal } from '@careen/auth';
import { Controller, Get } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';

class UserPrincipalResponse {
  @ApiProperty({ enum: ['user'] }) kind!: 'user';
  @ApiProperty() org!: string;
  @ApiProperty() username!: string;
  @ApiProperty({ enum: ROLES }) role!: string;
  @ApiPropertyOptional({ description: 'the issuer of the OpenID provider the user signed in through' })
  idp?: string;
}

class NodePrincipalResponse {
  @ApiProperty({ enum: ['node'] }) kind!: 'node';
  @ApiProperty() org!: string;
  @ApiProperty() node!: string;
}

class ServicePrincipalResponse {
  @ApiProperty({ enum: ['service'] }) kind!: 'service';
  @ApiProperty() org!: string;
  @ApiProperty({ description: 'the service account' }) account!: string;
  @ApiProperty({ description: "the key's id" }) key!: string;
  @ApiProperty({ type: [String], enum: SCOPES }) scopes!: string[];
  @ApiPropertyOptional({
    type: [String],
    description: 'the projects the key is limited to; absent: the whole org',
  })
  projects?: string[];
}

/**
 * Who the caller's credentials say they are, as this service sees them. Every service but the
 * exchange checks a service account's key by asking the exchange this.
 */
@ApiTags('auth')
@ApiBearerAuth()
@ApiBasicAuth()
@AllowNodes()
@OpenToAnyKey()
@ApiExtraModels(UserPrincipalResponse, NodePrincipalResponse, ServicePrincipalResponse)
@Controller('v1/whoami')
export class WhoAmIController {
  @Get()
  @ApiOperation({ summary: 'Say who the credentials belong to' })
  @ApiOkResponse({
    description:
      "a user of an org with its role, a node of an org, or a service account's key with its scopes",
    schema: {
      oneOf: [
        { $ref: getSchemaPath(UserPrincipalResponse) },
        { $ref: getSchemaPath(NodePrincipalResponse) },
        { $ref: getSchemaPath(ServicePrincipalResponse) },
      ],
    },
  })
  whoami(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }
}
