/**
 * Asks the Prometheus servers of the org's alert gates for their firing alerts, each at the
 * shortest evaluation interval of the gates that name it, and keeps the last answer. The slot's
 * transaction reads only this cache: no network call is made while a lock is held. Every replica
 * asks for itself; a gate whose Prometheus has not answered lately is closed (unless configured
 * open) by the gate itself (libs/disruption, alert-gate.ts).
 */
import { type AlertAnswer, DEFAULT_EVALUATION_SECONDS } from '@careen/disruption';
import { SERVICE_CONFIG, SERVICE_LOGGER } from '@careen/service';
import { type JsonLogger } from '@careen/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AgbotConfig } from '../agbot.config';

/** How often the gates are read and due servers asked. */
const TICK_MS = 1_000;
/** The longest a server is waited for. */
const ASK_TIMEOUT_MS = 5_000;

interface Server {
  everyMs: number;
  askedAt: number;
  asking: boolean;
}

@Injectable()
export class AlertWatch implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly answers = new Map<string, AlertAnswer>();
  private readonly servers = new Map<string, Server>();
  private readonly stop = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  private readonly allowed: string[];

  constructor(
    private readonly dataSource: DataSource,
    @Inject(SERVICE_LOGGER) private readonly logger: JsonLogger,
    @Inject(SERVICE_CONFIG) config: AgbotConfig,
  ) {
    this.allowed = config.CAREEN_ALERT_GATE_PROMETHEUS_URLS.split(',')
      .map((url) => normalized(url.trim()))
      .filter(Boolean);
  }

  /** The last answer of the Prometheus at `url`; undefined until it was asked. */
  answerOf(url: string): AlertAnswer | undefined {
    return this.answers.get(normalized(url));
  }

  onApplicationBootstrap(): void {
    const tick = async () => {
      try {
        await this.askDueServers();
      } catch (error) {
        this.logger.warn({ err: String(error) }, 'reading the alert gates failed; retrying');
      }
      if (!this.stop.signal.aborted) this.timer = setTimeout(() => void tick(), TICK_MS);
    };
    void tick();
  }

  onApplicationShutdown(): void {
    this.stop.abort();
    clearTimeout(this.timer);
  }

  /** Reads the gates the mirror holds and asks each server that is due, without waiting for it. */
  async askDueServers(): Promise<void> {
    const rows: { url: string; seconds: number | null }[] = await this.dataSource.query(
      `SELECT data ->> 'prometheusUrl' AS url, min((data ->> 'evaluationSeconds')::int) AS seconds
       FROM agbot.mirrored_resources WHERE resource = 'gate' GROUP BY 1`,
    );
    const wanted = new Set(rows.map((row) => normalized(row.url)));
    for (const url of [...this.servers.keys()]) {
      if (!wanted.has(url)) {
        this.servers.delete(url);
        this.answers.delete(url);
      }
    }
    for (const row of rows) {
      const url = normalized(row.url);
      const everyMs = (row.seconds ?? DEFAULT_EVALUATION_SECONDS) * 1000;
      const server = this.servers.get(url) ?? { everyMs, askedAt: 0, asking: false };
      server.everyMs = everyMs;
      this.servers.set(url, server);
      if (server.asking || Date.now() - server.askedAt < server.everyMs) continue;
      server.asking = true;
      server.askedAt = Date.now();
      void this.ask(url).then((answer) => {
        server.asking = false;
        if (this.servers.get(url) === server) this.answers.set(url, answer);
      });
    }
  }

  private async ask(url: string): Promise<AlertAnswer> {
    const askedAt = new Date();
    // Org admins name the URL: only the servers the hub's operator listed are ever asked.
    if (!this.allowed.some((base) => url === base || url.startsWith(`${base}/`)))
      return {
        askedAt,
        error: 'not one of the servers CAREEN_ALERT_GATE_PROMETHEUS_URLS lets the agbot ask',
      };
    try {
      const response = await fetch(`${url}/api/v1/alerts`, {
        signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(ASK_TIMEOUT_MS)]),
      });
      if (!response.ok) return { askedAt, error: `HTTP ${response.status}` };
      const body = (await response.json()) as {
        status?: string;
        data?: { alerts?: { state?: string; labels?: Record<string, string> }[] };
      };
      if (body.status !== 'success' || !Array.isArray(body.data?.alerts))
        return { askedAt, error: 'not an answer of the Prometheus alerts API' };
      return {
        askedAt,
        alerts: body.data.alerts
          .filter((alert) => alert.state === 'firing')
          .map((alert) => ({ labels: alert.labels ?? {} })),
      };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { askedAt, error: cause ?? (error as Error).message };
    }
  }
}

function normalized(url: string): string {
  return url.replace(/\/+$/, '');
}
