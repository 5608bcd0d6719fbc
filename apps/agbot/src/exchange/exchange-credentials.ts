import { type AgbotConfig } from '../agbot.config';
import { type ExchangeCredentials } from './exchange-client';

/** The agbot's exchange sign-in from its config, or undefined when no password is configured. */
export function exchangeCredentials(config: AgbotConfig): ExchangeCredentials | undefined {
  if (!config.CAREEN_AGBOT_EXCHANGE_PASSWORD) return undefined;
  const [org, username] = config.CAREEN_AGBOT_EXCHANGE_USER.split('/') as [string, string];
  return { org, username, password: config.CAREEN_AGBOT_EXCHANGE_PASSWORD };
}
