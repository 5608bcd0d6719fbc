/**
 * The processes `npm start` runs, started in dependency order and stopped in reverse: the
 * demo fleet first (its agents talk to the services), then the services (they drain into
 * NATS and Postgres), then NATS, then Postgres. What needs nothing of the others starts
 * beside them: NATS and the console's build beside Postgres.
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import {
  loadOrCreateNatsAuth,
  serviceEnv,
  startNatsCluster,
  startNatsServer,
  type HubService,
  type StoredNatsAuth,
} from '@careen/devstack';
import { createConsoleServer, type ApiPrefix } from '@careen/console/src/console-server';
import { startConsoleBuild, type ConsoleBuild } from './console-build';
import { useColor } from './console-log';
import type { LocalCredentials } from './credentials';
import type * as DemoFleetCode from './demo-fleet';
import { DEMO_ORG } from './demo-names';
import { LauncherError } from './launcher-error';
import { logTail, rotateLog } from './log-files';
import { startLocalPostgres, type LocalPostgres } from './local-postgres';
import { waitUntilReady } from './readiness';
import { describeExit, exitOf, spawnService, type ServiceExit, type ServiceProcess } from './service-process';
import { natsPorts, type StartConfig } from './start-config';

const READY_TIMEOUT_MS = 120_000;

/** A supervised process that ended. */
export interface ProcessEnd {
  name: string;
  logFile: string;
  exit: ServiceExit;
}

export class LocalPlatform {
  postgres?: LocalPostgres;
  /** The nats-server, or the cluster's members: their URLs, comma-separated. */
  nats?: { url: string; replicas: number; stop(): Promise<void> };
  /** The bus's JWT authorization: every service connects with its creds file. */
  private natsAuth?: StoredNatsAuth;
  demo?: DemoFleetCode.DemoFleet;
  /** The demo fleet's code, loaded ahead of its start. */
  private demoCode?: Promise<typeof DemoFleetCode>;
  private consoleBuild?: ConsoleBuild;
  /** The web console's server, in this process: the built app and the services' APIs under one origin. */
  private console?: Server;
  private natsExit?: Promise<ServiceExit>;
  readonly services: ServiceProcess[] = [];
  private stopping?: Promise<void>;
  /** Ends every readiness wait once shutdown begins, whatever started it. */
  private readonly shutdown = new AbortController();

  constructor(
    private readonly config: StartConfig,
    private readonly print: (line: string) => void,
  ) {}

  get natsCredsFile(): string | undefined {
    return this.natsAuth?.credsFile;
  }

  get natsLogFile(): string {
    return join(this.config.state.logs, 'nats.log');
  }

  /** Where a cluster's members log, one file each. */
  get natsClusterLogs(): string {
    return join(this.config.state.logs, 'nats-cluster');
  }

  get postgresLogFile(): string {
    return join(this.config.state.logs, 'postgres.log');
  }

  async startPostgres(password: string): Promise<void> {
    const { root, postgres } = this.config.state;
    const outside = postgres.startsWith(root)
      ? ''
      : ` with its data in ${postgres} (its user cannot reach ${root})`;
    this.print(`Starting Postgres on port ${this.config.pgPort}${outside}…`);
    this.postgres = await startLocalPostgres({
      dataDir: this.config.state.postgres,
      port: this.config.pgPort,
      password,
      logFile: this.postgresLogFile,
    });
  }

  async startNats(binary: string): Promise<void> {
    const ports = natsPorts(this.config);
    this.print(
      this.config.cluster
        ? `Starting a three-node JetStream cluster on ports ${ports.join(', ')}…`
        : `Starting nats-server (JetStream) on port ${this.config.natsPort}…`,
    );
    rotateLog(this.natsLogFile);
    try {
      this.natsAuth = await loadOrCreateNatsAuth(this.config.state.nats);
      if (this.config.cluster) {
        mkdirSync(this.natsClusterLogs, { recursive: true });
        const cluster = await startNatsCluster({
          binary,
          storeDir: join(this.config.state.nats, 'cluster'),
          ports,
          logDir: this.natsClusterLogs,
          auth: this.natsAuth,
        });
        this.nats = cluster;
        // The cluster outlives a member (that is what it is for): it has ended when all have.
        const exits = cluster.members.map((member) =>
          exitOf(member.process).then((exit) => {
            if (!this.stopping)
              this.print(`NATS cluster member ${member.name} ${describeExit(exit)}; the others carry on.`);
            return exit;
          }),
        );
        // Waits for each member in turn and answers the last one's exit.
        this.natsExit = exits.reduce((earlier, exit) => earlier.then(() => exit));
      } else {
        const server = await startNatsServer({
          binary,
          storeDir: this.config.state.nats,
          port: this.config.natsPort,
          logFile: this.natsLogFile,
          auth: this.natsAuth,
        });
        this.nats = { ...server, replicas: 1 };
        this.natsExit = exitOf(server.process);
      }
    } catch (error) {
      const logs = this.config.cluster
        ? `the logs in ${this.natsClusterLogs}`
        : `the end of ${this.natsLogFile}:\n${logTail(this.natsLogFile)}`;
      throw new LauncherError(
        `nats-server (${binary}) did not start: ${(error as Error).message}. See ${logs}`,
      );
    }
  }

  /** The exchange first (the others verify its tokens), then every other service at once. */
  async startServices(credentials: LocalCredentials, stopSignal: AbortSignal): Promise<void> {
    const signal = AbortSignal.any([stopSignal, this.shutdown.signal]);
    const [first, ...rest] = this.config.services;
    if (!first) {
      this.print('No hub service sources found under apps/; only Postgres and NATS are running.');
      return;
    }
    const waves = first.service.name === 'exchange' ? [[first], rest] : [this.config.services];
    for (const wave of waves) {
      if (signal.aborted || wave.length === 0) continue;
      this.print(`Starting ${wave.map(({ service }) => service.name).join(', ')}…`);
      const started = wave.map(({ service, port }) => this.spawn(service, port, credentials));
      await Promise.all(started.map((child) => this.awaitReady(child, signal)));
    }
  }

  /**
   * Loads the demo fleet's code (the agent's core, the bus, Nest: seconds of it) once the
   * launcher has started what comes first and waits for it (the exchange, in a process of its
   * own), rather than before anything starts.
   */
  loadDemoFleet(): void {
    if (this.config.demo) void this.demoFleetCode();
  }

  private demoFleetCode(): Promise<typeof DemoFleetCode> {
    if (!this.demoCode) {
      this.demoCode = Promise.resolve().then(
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        () => require('./demo-fleet') as typeof DemoFleetCode,
      );
      // Awaited when the fleet starts, which reports a failure.
      this.demoCode.catch(() => undefined);
    }
    return this.demoCode;
  }

  /** The simulated agents of the demo, once the exchange (and the agbot, when here) are ready. */
  async startDemoFleet(credentials: LocalCredentials, stopSignal: AbortSignal): Promise<void> {
    const demo = this.config.demo;
    if (!demo || this.shutdown.signal.aborted) return;
    this.print(`Starting the demo fleet: ${demo.nodes} simulated agents in ${demo.haGroups} HA groups…`);
    const { startDemoFleet } = await this.demoFleetCode();
    const agbot = this.services.find((child) => child.service.name === 'agbot');
    const fleet = await startDemoFleet({
      exchangeUrl: this.exchangeUrl(),
      agbotUrl: agbot?.url,
      natsUrl: this.nats?.url,
      natsCredsFile: this.natsAuth?.credsFile,
      withMaintenance: this.services.some((child) => child.service.name === 'maintenance-session'),
      notifierUrl: this.services.find((child) => child.service.name === 'notifier')?.url,
      rootPassword: credentials.rootPassword,
      adminPassword: credentials.demoPassword,
      nodes: demo.nodes,
      haGroups: demo.haGroups,
      installSeconds: demo.installSeconds,
      logFile: join(this.config.state.logs, 'demo-fleet.log'),
      logLevel: this.config.logLevel,
      print: this.print,
      signal: AbortSignal.any([stopSignal, this.shutdown.signal]),
    });
    // A stop that came while it started found nothing to stop yet.
    if (this.shutdown.signal.aborted) await fleet.stop();
    else this.demo = fleet;
  }

  /** Builds the web console's files in a process of its own, to serve once the services are up. */
  buildConsole(): void {
    if (this.config.consolePort) this.consoleFiles();
  }

  private consoleFiles(): ConsoleBuild {
    this.consoleBuild ??= startConsoleBuild(this.config.state.console);
    return this.consoleBuild;
  }

  /** The web console, serving the services' APIs under its own origin as the Kubernetes Ingress does. */
  async startConsole(): Promise<void> {
    const port = this.config.consolePort;
    if (!port || this.shutdown.signal.aborted) return;
    const root = await this.consoleFiles().built;
    if (this.shutdown.signal.aborted) return;
    const urlOf = (name: string) => this.services.find((child) => child.service.name === name)?.url;
    const upstreams: Partial<Record<ApiPrefix, string | undefined>> = {
      exchange: urlOf('exchange'),
      agbot: urlOf('agbot'),
      maintenance: urlOf('maintenance-session'),
      orchestrator: urlOf('deployment-orchestrator'),
      notifier: urlOf('notifier'),
    };
    const server = createConsoleServer({ root, upstreams });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) =>
        reject(new LauncherError(`the web console could not listen on port ${port}: ${error.message}`)),
      );
      server.listen(port, '127.0.0.1', resolve);
    });
    this.console = server;
    this.print(`console is ready at ${this.consoleUrl()}`);
  }

  consoleUrl(): string | undefined {
    return this.config.consolePort ? `http://127.0.0.1:${this.config.consolePort}` : undefined;
  }

  /** Settles with the first of NATS and the services to end; never, if none runs. */
  firstExit(): Promise<ProcessEnd> {
    const ends: Promise<ProcessEnd>[] = this.services.map((child) =>
      child.exited.then((exit) => ({ name: child.service.name, logFile: child.logFile, exit })),
    );
    if (this.natsExit)
      ends.push(this.natsExit.then((exit) => ({ name: 'nats-server', logFile: this.natsLogFile, exit })));
    return ends.length > 0 ? Promise.race(ends) : new Promise<never>(() => undefined);
  }

  /** Idempotent: every caller waits for the same shutdown. */
  stop(): Promise<void> {
    this.shutdown.abort();
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    await this.consoleBuild?.cancel();
    if (this.console) {
      const server = this.console;
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
    }
    if (this.demo) {
      this.print('Stopping the demo fleet…');
      await this.demo.stop();
    }
    const running = this.services.filter((child) => child.isRunning());
    if (running.length > 0) this.print(`Stopping ${running.map((child) => child.service.name).join(', ')}…`);
    await Promise.all(
      running.map(async (child) => {
        await child.stop();
        const exit = await child.exited;
        // Ending by the SIGTERM it was sent is a clean stop (Nest re-raises the signal after draining).
        if (exit.signal === 'SIGKILL')
          this.print(`${child.service.name} did not stop in time and was killed.`);
        else if (exit.code !== null && exit.code !== 0) {
          this.print(`${child.service.name} ${describeExit(exit)} while stopping (see ${child.logFile}).`);
        }
      }),
    );
    if (this.nats) {
      this.print('Stopping NATS…');
      await this.nats.stop();
    }
    if (this.postgres) {
      this.print('Stopping Postgres…');
      await this.postgres.stop();
    }
  }

  private spawn(service: HubService, port: number, credentials: LocalCredentials): ServiceProcess {
    const child = spawnService({
      service,
      port,
      env: this.serviceEnv(service, port, credentials),
      logFile: join(this.config.state.logs, `${service.name}.log`),
      color: useColor(),
      print: this.print,
    });
    this.services.push(child);
    return child;
  }

  private async awaitReady(child: ServiceProcess, signal: AbortSignal): Promise<void> {
    const outcome = await waitUntilReady(child.url, {
      timeoutMs: READY_TIMEOUT_MS,
      isRunning: () => child.isRunning(),
      signal,
    });
    const name = child.service.name;
    switch (outcome) {
      case 'ready':
        this.print(`${name} is ready at ${child.url}`);
        return;
      case 'aborted':
        return;
      case 'exited': {
        const exit = await child.exited;
        throw new LauncherError(
          `${name} ${describeExit(exit)} before it was ready. The end of ${child.logFile}:\n${logTail(child.logFile)}`,
        );
      }
      case 'timeout':
        throw new LauncherError(
          `${name} did not answer 200 on ${child.url}/readyz within ${READY_TIMEOUT_MS / 1000}s. ` +
            `The end of ${child.logFile}:\n${logTail(child.logFile)}`,
        );
    }
  }

  private serviceEnv(service: HubService, port: number, credentials: LocalCredentials): NodeJS.ProcessEnv {
    const agbot = this.config.services.find((each) => each.service.name === 'agbot');
    return serviceEnv(
      service,
      port,
      {
        databaseUrl: this.postgres?.url,
        natsUrl: this.nats?.url,
        natsStreamReplicas: this.nats?.replicas,
        natsAuth: this.natsAuth,
        rootPassword: credentials.rootPassword,
        exchangeUrl: this.exchangeUrl(),
        agbotUrl: agbot && `http://127.0.0.1:${agbot.port}`,
        logLevel: this.config.logLevel,
        otelEndpoint: this.config.otelEndpoint,
        fleetLockOrg: this.config.demo ? DEMO_ORG : undefined,
      },
      process.env,
    );
  }

  exchangeUrl(): string {
    return `http://127.0.0.1:${this.config.exchangePort}`;
  }
}
