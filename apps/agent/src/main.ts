/** `careen-agent`: the edge agent daemon. Stops cleanly on SIGTERM or SIGINT. */
import { ConfigError, loadConfig } from '@careen/service';
import { createLogger } from '@careen/telemetry';
import { AgentConfig } from './agent.config';
import { AgentDaemon } from './agent-daemon';
import { AgentStateError, AgentStateStore } from './state/agent-state.store';

async function main(): Promise<void> {
  const config = loadConfig(AgentConfig);
  const logger = createLogger('agent', { level: config.CAREEN_LOG_LEVEL });
  const daemon = new AgentDaemon(config, new AgentStateStore(config.CAREEN_AGENT_STATE_DIR), logger);
  await daemon.start();
  process.once('SIGTERM', () => daemon.stop());
  process.once('SIGINT', () => daemon.stop());
  await daemon.run();
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof AgentStateError;
  process.stderr.write(
    `careen-agent: ${known ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(known ? 78 : 1);
});
