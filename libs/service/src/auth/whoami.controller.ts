import { AllowNodes, CurrentPrincipal, ROLES, type Principal } from '@careen/auth';
import { Controller, Get } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';

class UserPrincipalResponse {
  @ApiProperty({ enum: ['user'] }) kind!: 'user';
  @ApiProperty() org!: string;
  @ApiProperty() username!: string;
  @ApiProperty({ enum: ROLES }) role!: string;
}

class NodePrincipalResponse {
  @ApiProperty({ enum: ['node'] }) kind!: 'node';
  @ApiProperty() org!: string;
  @ApiProperty() node!: string;
}

/** Who the caller's credentials say they are, as this service sees them. */
@ApiTags('auth')
@ApiBearerAuth()
@ApiBasicAuth()
@AllowNodes()
@ApiExtraModels(UserPrincipalResponse, NodePrincipalResponse)
@Controller('v1/whoami')
export class WhoAmIController {
  @Get()
  @ApiOperation({ summary: 'Say who the credentials belong to' })
  @ApiOkResponse({
    description: 'a user of an org with its role, or a node of an org',
    schema: {
      oneOf: [{ $ref: getSchemaPath(UserPrincipalResponse) }, { $ref: getSchemaPath(NodePrincipalResponse) }],
    },
  })
  whoami(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }
}
