import { AllowNodes, CurrentPrincipal, type Principal } from '@careen/auth';
import { Controller, Get } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiTags } from '@nestjs/swagger';

/** Who the caller's credentials say they are, as this service sees them. */
@ApiTags('auth')
@ApiBearerAuth()
@ApiBasicAuth()
@AllowNodes()
@Controller('v1/whoami')
export class WhoAmIController {
  @Get()
  whoami(@CurrentPrincipal() principal: Principal): Principal {
    return principal;
  }
}
