/**
 * What every command needs, resolved lazily from the global options: the printer, the stored
 * login, the exchange URL, authenticated calls to the exchange and the other services, the org
 * to act on.
 */
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { resolveExchangeUrl, resolveLogin, type ResolvedLogin } from '../auth/credentials';
import { loginCallOptions } from '../auth/login-call-options';
import { type CliEnv } from '../cli-env';
import { type CliIo } from '../cli-io';
import { type ConfigStore, type StoredConfig } from '../config/config-store';
import { type Call, type CallOptions, serviceCalls } from '../http/service-calls';
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

/** Calls to the exchange. */
export type ExchangeCall = Call<Exchange.paths>;

export class CommandContext {
  readonly printer: Printer;
  private stored?: Promise<StoredConfig>;
  private login?: ResolvedLogin;
  /** One per run, so that every call of the command shares one renewal of the stored login. */
  private callOptions?: CallOptions;

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

  /** Calls without credentials, for logging in. */
  async anonymousExchange(): Promise<ExchangeCall> {
    return serviceCalls<Exchange.paths>(await this.exchangeUrl());
  }

  /** Calls with the caller's credentials; a CliError when there are none usable. */
  async exchange(): Promise<ExchangeCall> {
    const exchangeUrl = await this.exchangeUrl();
    this.login = resolveLogin(this.env, await this.storedConfig(), exchangeUrl, this.services.now());
    return serviceCalls<Exchange.paths>(exchangeUrl, this.loginOptions(this.login));
  }

  /**
   * Calls to another Careen service (the agbot, say) at `serviceUrl`, with the caller's exchange
   * credentials: the other services accept what the exchange issued.
   */
  async serviceCalls<Paths extends object>(serviceUrl: string): Promise<Call<Paths>> {
    this.login ??= resolveLogin(
      this.env,
      await this.storedConfig(),
      await this.exchangeUrl(),
      this.services.now(),
    );
    return serviceCalls<Paths>(serviceUrl, this.loginOptions(this.login));
  }

  /** The org named on the command line, else CAREEN_ORG, else the caller's own org. */
  async org(exchange: ExchangeCall, explicit?: string): Promise<string> {
    const known = explicit ?? this.env.org ?? this.login?.org;
    if (known) return known;
    // Only a bare CAREEN_TOKEN or CAREEN_API_KEY leaves the caller's org unknown here.
    return (await exchange((api) => api.GET('/v1/whoami'))).org;
  }

  private loginOptions(login: ResolvedLogin): CallOptions {
    this.callOptions ??= loginCallOptions(login, this.services.store, this.services.now);
    return this.callOptions;
  }
}

export function contextOf(command: Command, services: CliServices): CommandContext {
  return new CommandContext(services, command.optsWithGlobals<GlobalOptions>());
}

/** What a command acting inside one org needs: its context, authenticated exchange calls and the org. */
export async function orgCommandContext(
  command: Command,
  services: CliServices,
  explicitOrg?: string,
): Promise<{ context: CommandContext; exchange: ExchangeCall; org: string }> {
  const context = contextOf(command, services);
  const exchange = await context.exchange();
  return { context, exchange, org: await context.org(exchange, explicitOrg) };
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
export async function serviceCommandContext<Paths extends object>(
  command: Command,
  services: CliServices,
  service: OtherService,
): Promise<{ context: CommandContext; ask: Call<Paths> }> {
  const context = contextOf(command, services);
  const call = await context.serviceCalls<Paths>(service.url);
  const ask: Call<Paths> = (request) =>
    askService(service.name, service.url, service.setting, () => call(request));
  return { context, ask };
}
