/**
 * An agent's connections to the hub. Its long poll of the change feed keeps one connection of
 * its own for as long as the exchange keeps it open; every other request (status writes, reads,
 * downloads, the agbot's slot) shares connections that close after a minute idle.
 *
 * One pool for everything kept two or three connections per idle agent open for good: a pool
 * hands the next request a connection other than the one that just answered (still being
 * released), so polls rotate through every connection a burst of requests once opened, and a
 * poll every half minute keeps each inside the exchange's 65 s keep-alive. A fleet then held
 * two or three times as many of the exchange's sockets and descriptors as it has nodes: 20,000
 * agents needed about 40,000, past a process's usual limit of open files.
 *
 * The other connections stay open for a minute, not a few seconds, so that an upgrade's steps
 * (seconds to a minute apart) go over the connection the last one opened. Closed after 5 s, a
 * fleet's rollout opened a connection for nearly every request, faster than a saturated exchange
 * accepted them: its queue of connections not yet accepted stayed full, the kernel dropped the
 * agents' handshakes, and their retries kept it full. A minute is still shorter than the
 * exchange's keep-alive (65 s), so the agent, not the exchange, closes an idle connection, and
 * never sends on one the exchange has just closed.
 */
import { dispatcherFetch, type SendRequest } from '@careen/api-client';
import { Agent } from 'undici';

/** How long a connection other than the poll's stays open without a request, by default. */
const IDLE_MS = 60_000;

/** The two ways the agent's requests go out: its long poll, and everything else. */
export interface HubTransport {
  poll: SendRequest;
  send: SendRequest;
}

export class HubConnections implements HubTransport {
  private readonly polls: Agent;
  private readonly requests: Agent;
  readonly poll: SendRequest;
  readonly send: SendRequest;

  /**
   * `localAddress`: the address the connections leave from; by default the system picks.
   * `idleMs`: how long a connection other than the poll's stays open without a request.
   */
  constructor({ localAddress, idleMs = IDLE_MS }: { localAddress?: string; idleMs?: number } = {}) {
    const from = localAddress ? { localAddress } : {};
    this.polls = new Agent({ ...from, connections: 1 });
    // The exchange's keep-alive hint is longer; the shorter of the two holds.
    this.requests = new Agent({ ...from, keepAliveMaxTimeout: idleMs });
    this.poll = dispatcherFetch(this.polls);
    this.send = dispatcherFetch(this.requests);
  }

  async close(): Promise<void> {
    await Promise.all([this.polls.destroy(), this.requests.destroy()]);
  }
}
