/** The environment `careen-agent simulate` reads; its flags override each variable. */
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '@careen/contracts';
import { LOG_LEVELS, Secret } from '@careen/service';
import { IsIn, IsOptional, IsUrl, Matches } from 'class-validator';

export class SimulatorConfig {
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  CAREEN_EXCHANGE_URL = 'http://127.0.0.1:8080';

  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  CAREEN_AGBOT_URL?: string;

  @Matches(IDENTIFIER_PATTERN, { message: `CAREEN_AGENT_ORG must be ${IDENTIFIER_RULE}` })
  CAREEN_AGENT_ORG = 'demo';

  /** `username:password` of an admin of the org, to register the simulated nodes and their groups. */
  @IsOptional()
  @Secret()
  @Matches(/^[^:]+:.+$/, { message: 'CAREEN_SIMULATOR_ADMIN must be username:password' })
  CAREEN_SIMULATOR_ADMIN?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  CAREEN_LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';
}
