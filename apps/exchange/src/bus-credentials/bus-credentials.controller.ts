import {
  AuthorizationError,
  AuthErrorCode,
  CurrentPrincipal,
  NeedsRole,
  OnResource,
  type Principal,
} from '@careen/auth';
import { Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { BusCredentialsService } from './bus-credentials.service';
import { BusCredentialsResponse } from './dto/bus-credentials.response';

@ApiTags('service-accounts')
@ApiBearerAuth()
@OnResource('maintenance')
@Controller('v1/auth/bus-credentials')
export class BusCredentialsController {
  constructor(private readonly credentials: BusCredentialsService) {}

  /**
   * NATS credentials for the calling key (`maintenance:write`): publish on its org's request
   * subjects, hear replies on its own inbox. Asked again before they end, as a token is renewed.
   */
  @Post()
  @ApiOperation({ summary: "Issue NATS credentials to the calling service account's key" })
  @ApiOkResponse({ type: BusCredentialsResponse })
  @ApiForbiddenResponse({
    description: "a user's credentials (keys only), or a key without maintenance:write",
  })
  @ApiServiceUnavailableResponse({
    description: 'the exchange has no NATS signing key: BUS_CREDENTIALS_UNAVAILABLE',
  })
  @NeedsRole('operator')
  @HttpCode(200)
  issue(@CurrentPrincipal() principal: Principal): Promise<BusCredentialsResponse> {
    if (principal.kind !== 'service') {
      throw new AuthorizationError(
        AuthErrorCode.Forbidden,
        "bus credentials are issued to service accounts' keys: make one with careen service-account key create",
      );
    }
    return this.credentials.issue(principal);
  }
}
