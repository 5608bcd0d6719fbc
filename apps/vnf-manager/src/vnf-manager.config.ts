import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { LOG_LEVELS, Secret } from '@careen/service';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

export class VnfManagerConfig {
  @Matches(/^nats:\/\/[^,\s]+(,nats:\/\/[^,\s]+)*$/, {
    message: 'CAREEN_NATS_URL must be one or more nats:// URLs, comma-separated',
  })
  CAREEN_NATS_URL!: string;

  /** The project whose events this manager follows and answers. */
  @Matches(IDENTIFIER_PATTERN, { message: `CAREEN_VNFM_PROJECT must be ${IDENTIFIER_RULE}` })
  CAREEN_VNFM_PROJECT!: string;

  /**
   * Follow the project's events on the bus (a durable consumer of its own), through a `nats`
   * subscription (its consumer, CAREEN_VNFM_NATS_CONSUMER, read with CAREEN_NATS_CREDS), or as
   * webhooks the notifier posts.
   */
  @IsOptional()
  @IsIn(['bus', 'nats', 'webhook'])
  CAREEN_VNFM_FOLLOW: 'bus' | 'nats' | 'webhook' = 'bus';

  /** A NATS creds file: with `nats`, the credentials the subscription was issued. */
  @IsOptional()
  @IsString()
  CAREEN_NATS_CREDS?: string;

  /** `nats`: the subscription's consumer (`careen-sub-<subscription id>`). */
  @IsOptional()
  @Matches(/^careen-sub-[0-9a-f-]{36}$/, {
    message: 'CAREEN_VNFM_NATS_CONSUMER must be careen-sub-<subscription id>',
  })
  CAREEN_VNFM_NATS_CONSUMER?: string;

  /** `webhook`: the port to receive deliveries on. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  CAREEN_VNFM_WEBHOOK_PORT = 8090;

  /** `webhook`: the subscription's secret (`whsec_…`); without it deliveries are not checked. */
  @IsOptional()
  @IsString()
  @Secret()
  CAREEN_VNFM_WEBHOOK_SECRET?: string;

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
