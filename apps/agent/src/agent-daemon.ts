/**
 * The agent daemon's life cycle: it takes its identity from the config or from the state
 * folder (so a restart is the same node), records each start, then checks in with the
 * exchange on every poll interval until stopped, logging when the exchange comes and goes.
 */
import { type JsonLogger } from '@careen/telemetry';
import { type AgentConfig } from './agent.config';
import { AGENT_STATE_VERSION, type AgentState } from './state/agent-state';
import { AgentStateError, type AgentStateStore } from './state/agent-state.store';

export class AgentDaemon {
  private state: AgentState | undefined;
  private stopped: (() => void) | undefined;
  private exchangeReachable: boolean | undefined;

  constructor(
    private readonly config: AgentConfig,
    private readonly store: AgentStateStore,
    private readonly logger: JsonLogger,
    private readonly clock: () => Date = () => new Date(),
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
    this.state = {
      schemaVersion: AGENT_STATE_VERSION,
      org: this.config.CAREEN_AGENT_ORG,
      nodeId,
      token: this.config.CAREEN_AGENT_TOKEN ?? previous?.token,
      starts: (previous?.starts ?? 0) + 1,
      lastStartedAt: this.clock().toISOString(),
    };
    await this.store.save(this.state);
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

  /** Checks in with the exchange every poll interval; resolves when stop() is called. */
  async run(): Promise<void> {
    const stopped = new Promise<void>((resolve) => (this.stopped = resolve));
    await this.checkExchange();
    const timer = setInterval(() => void this.checkExchange(), this.config.CAREEN_AGENT_POLL_SECONDS * 1000);
    await stopped;
    clearInterval(timer);
  }

  stop(): void {
    this.logger.info({ node: this.state?.nodeId }, 'agent stopping');
    this.stopped?.();
  }

  private async checkExchange(): Promise<void> {
    const url = new URL('/healthz', this.config.CAREEN_EXCHANGE_URL);
    let reachable: boolean;
    try {
      reachable = (await fetch(url, { signal: AbortSignal.timeout(5_000) })).ok;
    } catch {
      reachable = false;
    }
    if (reachable === this.exchangeReachable) return;
    this.exchangeReachable = reachable;
    if (reachable) this.logger.info({ exchange: url.origin }, 'exchange reachable');
    else this.logger.warn({ exchange: url.origin }, 'exchange unreachable; will keep trying');
  }
}
