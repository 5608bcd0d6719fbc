import { AllowNodes, CurrentPrincipal, type Principal } from '@careen/auth';
import { Controller, Get } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';

/** Who the caller's credentials say they are, as this service sees them. */
@ApiTags('auth')
@ApiBearerAuth()
@ApiBasicAuth()
@AllowNodes()
@Controller('v1/whoami')
export class WhoAmIController {
  @Get()
  @ApiOperation({ summary: 'Say who the credentials belong to' })
  whoami(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }
}
