import { IsUrl } from 'class-validator';
import { ServiceConfig } from './service-config';

/** Config of a hub service other than the exchange: it verifies tokens against the exchange. */
export class HubServiceConfig extends ServiceConfig {
  /** Base URL of the exchange, e.g. http://exchange:8080 */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  CAREEN_EXCHANGE_URL!: string;
}
