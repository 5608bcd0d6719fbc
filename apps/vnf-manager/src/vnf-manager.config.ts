import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { LOG_LEVELS, Secret } from '@careen/service';
import { IsIn, IsOptional, IsString, IsUrl, Matches } from 'class-validator';

export class VnfManagerConfig {
  @Matches(/^nats:\/\/[^,\s]+(,nats:\/\/[^,\s]+)*$/, {
    message: 'CAREEN_NATS_URL must be one or more nats:// URLs, comma-separated',
  })
  CAREEN_NATS_URL!: string;

  /** The project whose events this manager follows and answers. */
  @Matches(IDENTIFIER_PATTERN, { message: `CAREEN_VNFM_PROJECT must be ${IDENTIFIER_RULE}` })
  CAREEN_VNFM_PROJECT!: string;

  /** Answer on the reply subject (`bus`) or by `PUT reply_url` (`http`). */
  @IsOptional()
  @IsIn(['bus', 'http'])
  CAREEN_VNFM_REPLY_VIA: 'bus' | 'http' = 'bus';

  /** With the next four, DOWN_SCALE scales this deployment policy down by one replica and back after. */
  @IsOptional()
  @Matches(IDENTIFIER_PATTERN, { message: `CAREEN_VNFM_DEPLOYMENT_POLICY must be ${IDENTIFIER_RULE}` })
  CAREEN_VNFM_DEPLOYMENT_POLICY?: string;

  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  CAREEN_EXCHANGE_URL = 'http://127.0.0.1:8080';

  /** `org/username` of a user who may change the deployment policy. */
  @IsOptional()
  @Matches(/^[^/\s]+\/[^/\s]+$/, { message: 'CAREEN_VNFM_EXCHANGE_USER must be org/username' })
  CAREEN_VNFM_EXCHANGE_USER?: string;

  @IsOptional()
  @IsString()
  @Secret()
  CAREEN_VNFM_EXCHANGE_PASSWORD?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  CAREEN_LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';
}
