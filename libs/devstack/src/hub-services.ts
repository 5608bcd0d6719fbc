/** The hub's HTTP services, in start order: the exchange first, since the others verify its tokens. */
export interface HubService {
  name: string;
  portEnv: string;
  defaultPort: number;
  /** The Postgres schema it owns. */
  schema: string;
}

export const HUB_SERVICES: readonly HubService[] = [
  { name: 'exchange', portEnv: 'CAREEN_EXCHANGE_PORT', defaultPort: 8080, schema: 'exchange' },
  { name: 'agbot', portEnv: 'CAREEN_AGBOT_PORT', defaultPort: 8081, schema: 'agbot' },
  {
    name: 'maintenance-session',
    portEnv: 'CAREEN_MAINTENANCE_SESSION_PORT',
    defaultPort: 8082,
    schema: 'maintenance_session',
  },
  {
    name: 'deployment-orchestrator',
    portEnv: 'CAREEN_DEPLOYMENT_ORCHESTRATOR_PORT',
    defaultPort: 8083,
    schema: 'deployment_orchestrator',
  },
  { name: 'notifier', portEnv: 'CAREEN_NOTIFIER_PORT', defaultPort: 8084, schema: 'notifier' },
];
