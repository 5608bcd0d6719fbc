/**
 * What every command needs, resolved lazily from the global options: the printer, the stored
 * login, the exchange URL, an authenticated client, the org to act on.
 */
import { type Command } from 'commander';
import { resolveExchangeUrl, resolveLogin, type ResolvedLogin } from '../auth/credentials';
import { type CliEnv } from '../cli-env';
import { type CliIo } from '../cli-io';
import { type ConfigStore, type StoredConfig } from '../config/config-store';
import { ExchangeClient } from '../http/exchange-client';
import { askService } from '../http/service-url';
import { Printer, type OutputFormat } from '../output/output';

export interface GlobalOptions {
  output: OutputFormat;
  exchange?: string;
}

/** Shared by every command of one run. */
export interface CliServices {
  io: CliIo;
  env: CliEnv;
  store: ConfigStore;
  now: () => Date;
}

interface WhoAmI {
  kind: string;
  org: string;
}

export class CommandContext {
  readonly printer: Printer;
  private stored?: Promise<StoredConfig>;
  private login?: ResolvedLogin;

  constructor(
    readonly services: CliServices,
    readonly globals: GlobalOptions,
  ) {
    this.printer = new Printer(services.io.stdout, globals.output);
  }

  get io(): CliIo {
    return this.services.io;
  }

  get env(): CliEnv {
    return this.services.env;
  }

  storedConfig(): Promise<StoredConfig> {
    this.stored ??= this.services.store.load();
    return this.stored;
  }

  async exchangeUrl(): Promise<string> {
    return resolveExchangeUrl(this.globals.exchange, this.env, await this.storedConfig());
  }

  /** A client without credentials, for logging in. */
  async anonymousClient(): Promise<ExchangeClient> {
    return new ExchangeClient({ exchangeUrl: await this.exchangeUrl() });
  }

  /** A client with the caller's credentials; a CliError when there are none usable. */
  async client(): Promise<ExchangeClient> {
    const exchangeUrl = await this.exchangeUrl();
    this.login = resolveLogin(this.env, await this.storedConfig(), exchangeUrl, this.services.now());
    return new ExchangeClient({
      exchangeUrl,
      credentials: this.login.credentials,
      refusalHint: this.login.refusalHint,
    });
  }

  /**
   * A client of another Careen service (the agbot) at `serviceUrl`, with the caller's exchange
   * credentials: the other services accept what the exchange issued.
   */
  async serviceClient(serviceUrl: string): Promise<ExchangeClient> {
    this.login ??= resolveLogin(
      this.env,
      await this.storedConfig(),
      await this.exchangeUrl(),
      this.services.now(),
    );
    return new ExchangeClient({
      exchangeUrl: serviceUrl,
      credentials: this.login.credentials,
      refusalHint: this.login.refusalHint,
    });
  }

  /** The org named on the command line, else CAREEN_ORG, else the caller's own org. */
  async org(client: ExchangeClient, explicit?: string): Promise<string> {
    const known = explicit ?? this.env.org ?? this.login?.org;
    if (known) return known;
    // Only a bare CAREEN_TOKEN leaves the caller's org unknown here.
    return (await client.get<WhoAmI>('/v1/whoami')).org;
  }
}

export function contextOf(command: Command, services: CliServices): CommandContext {
  return new CommandContext(services, command.optsWithGlobals<GlobalOptions>());
}

/** What a command acting inside one org needs: its context, an authenticated client and the org. */
export async function orgCommandContext(
  command: Command,
  services: CliServices,
  explicitOrg?: string,
): Promise<{ context: CommandContext; client: ExchangeClient; org: string }> {
  const context = contextOf(command, services);
  const client = await context.client();
  return { context, client, org: await context.org(client, explicitOrg) };
}

/** Another Careen service a command talks to: its name, base URL, and the setting that points elsewhere. */
export interface OtherService {
  name: string;
  url: string;
  setting: string;
}

/**
 * What a command asking another service needs: its context, and `ask`, which runs a request with
 * an authenticated client of that service and names the service in its failures.
 */
export async function serviceCommandContext(command: Command, services: CliServices, service: OtherService) {
  const context = contextOf(command, services);
  const client = await context.serviceClient(service.url);
  const ask = <T>(request: (client: ExchangeClient) => Promise<T>) =>
    askService(service.name, service.url, service.setting, () => request(client));
  return { context, ask };
}
