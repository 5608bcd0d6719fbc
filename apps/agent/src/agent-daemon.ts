/**
 * The agent daemon's life cycle: it takes its identity from the config or from the state
 * folder (so a restart is the same node), records each start, then runs the agent's core
 * until stopped. An upgrade that needs a restart exits with RESTART_EXIT_CODE for the
 * supervisor to start the new version.
 */
import { type JsonLogger } from '@careen/telemetry';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type AgentConfig } from './agent.config';
import { AgentCore } from './agent-core';
import { type Clock, type RandomSource, systemClock } from './core/clock';
import { AgentMemory } from './state/agent-memory';
import { AGENT_STATE_VERSION, type AgentState } from './state/agent-state';
import { AgentStateError } from './state/agent-state.store';
import { type StateStore, stateText } from './state/state-store';
import { RESTART_EXIT_CODE, type Restarter } from './upgrade/install-strategy';
import { TarballInstallStrategy } from './upgrade/tarball-install.strategy';
import { ProcessRuntime } from './workloads/process-runtime';
import { SimulatedRuntime } from './workloads/simulated-runtime';

export class AgentDaemon {
  private state: AgentState | undefined;
  private core: AgentCore | undefined;
  private stopRequested = false;

  constructor(
    private readonly config: AgentConfig,
    private readonly store: StateStore,
    private readonly logger: JsonLogger,
    private readonly clock: Clock = systemClock,
    private readonly random: RandomSource = Math.random,
    /** How the process leaves to be restarted; the default exits for the supervisor. */
    private readonly exit: (code: number) => void = (code) => process.exit(code),
  ) {}

  /** Loads or creates the node's identity and records this start. */
  async start(): Promise<AgentState> {
    const previous = await this.store.load();
    const nodeId = this.config.CAREEN_AGENT_NODE_ID ?? previous?.nodeId;
    if (!nodeId) throw new AgentStateError('no node id: set CAREEN_AGENT_NODE_ID for the first run');
    if (previous && (previous.org !== this.config.CAREEN_AGENT_ORG || previous.nodeId !== nodeId)) {
      throw new AgentStateError(
        `the state folder belongs to ${previous.org}/${previous.nodeId}, not ${this.config.CAREEN_AGENT_ORG}/${nodeId}; use another CAREEN_AGENT_STATE_DIR`,
      );
    }
    // A node registering itself picks its own token; it is kept with the rest of the state.
    const generated = this.config.CAREEN_AGENT_REGISTER_AS
      ? randomBytes(24).toString('base64url')
      : undefined;
    this.state = {
      ...previous,
      schemaVersion: AGENT_STATE_VERSION,
      org: this.config.CAREEN_AGENT_ORG,
      nodeId,
      token: this.config.CAREEN_AGENT_TOKEN ?? previous?.token ?? generated,
      starts: (previous?.starts ?? 0) + 1,
      lastStartedAt: this.clock.now().toISOString(),
    };
    await this.store.save(stateText(this.state));
    this.logger.info(
      {
        org: this.state.org,
        node: nodeId,
        starts: this.state.starts,
        exchange: this.config.CAREEN_EXCHANGE_URL,
      },
      'agent started',
    );
    return this.state;
  }

  /** Runs the agent until stop() is called. */
  async run(): Promise<void> {
    if (!this.state) throw new Error('start() first');
    if (!this.state.token) {
      throw new AgentStateError(
        'no node token: set CAREEN_AGENT_TOKEN, or CAREEN_AGENT_REGISTER_AS to register',
      );
    }
    const config = this.config;
    const runtime =
      config.CAREEN_AGENT_RUNTIME === 'simulated'
        ? new SimulatedRuntime()
        : new ProcessRuntime(config.CAREEN_AGENT_WORKLOAD_COMMAND, this.clock, this.random);
    const restarter: Restarter = {
      restart: async () => {
        this.logger.info({ node: this.state?.nodeId }, 'agent restarting');
        await runtime.stopAll();
        this.exit(RESTART_EXIT_CODE);
        // Only reached when exit is not the process's (tests): nothing more to do here.
        await new Promise<never>(() => undefined);
      },
    };
    const [username, ...password] = (config.CAREEN_AGENT_REGISTER_AS ?? '').split(':');
    this.core = new AgentCore({
      exchangeUrl: config.CAREEN_EXCHANGE_URL,
      agbotUrl: config.CAREEN_AGBOT_URL,
      pollSeconds: config.CAREEN_AGENT_POLL_SECONDS,
      builtinVersion: config.CAREEN_AGENT_VERSION,
      strategy: new TarballInstallStrategy(
        config.CAREEN_AGENT_INSTALL_DIR,
        config.CAREEN_AGENT_HEALTH_TIMEOUT_SECONDS * 1000,
      ),
      runtime,
      downloadsDir: join(config.CAREEN_AGENT_STATE_DIR, 'downloads'),
      trustedKeys: config.CAREEN_AGENT_TRUSTED_KEYS,
      downloadBytesPerSecond: config.CAREEN_AGENT_DOWNLOAD_BYTES_PER_SECOND,
      restarter,
      registration: username && password.length > 0 ? { username, password: password.join(':') } : undefined,
      memory: new AgentMemory(this.state, this.store),
      clock: this.clock,
      random: this.random,
      logger: this.logger,
    });
    if (this.stopRequested) this.core.stop();
    await this.core.run();
  }

  stop(): void {
    this.logger.info({ node: this.state?.nodeId }, 'agent stopping');
    this.stopRequested = true;
    this.core?.stop();
  }
}
