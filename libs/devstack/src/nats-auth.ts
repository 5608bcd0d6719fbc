/**
 * nats-server's decentralized JWT authorization for a Careen bus: an operator, a system account
 * and the `CAREEN` account (JetStream on), whose JWTs the server preloads (memory resolver);
 * the services' user, free within the account; and a signing key of the account with which the
 * notifier issues subscribers users limited to their project. What `nsc` would make, made here
 * so that the dev stack and the tests run with authorization on.
 */
import {
  createAccount,
  createOperator,
  createUser,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
} from '@nats-io/jwt';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface NatsAuth {
  operatorJwt: string;
  systemAccount: { publicKey: string; jwt: string };
  account: { publicKey: string; jwt: string };
  /** The account signing key (a seed) the notifier issues subscribers' users with. */
  signingKeySeed: string;
  /** A creds file (JWT and seed) for the hub services. */
  serviceCreds: string;
}

/** No limits but the server's own, JetStream on (an account without limits set gets none of either). */
const UNLIMITED = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
  mem_storage: -1,
  disk_storage: -1,
  streams: -1,
  consumer: -1,
};

export async function createNatsAuth(): Promise<NatsAuth> {
  const operator = createOperator();
  const system = createAccount();
  const account = createAccount();
  const signing = createAccount();
  const service = createUser();
  const operatorJwt = await encodeOperator('careen', operator, { system_account: system.getPublicKey() });
  const systemJwt = await encodeAccount('SYS', system, {}, { signer: operator });
  const accountJwt = await encodeAccount(
    'CAREEN',
    account,
    { limits: UNLIMITED, signing_keys: [signing.getPublicKey()] },
    { signer: operator },
  );
  const serviceJwt = await encodeUser('careen-services', service, account);
  return {
    operatorJwt,
    systemAccount: { publicKey: system.getPublicKey(), jwt: systemJwt },
    account: { publicKey: account.getPublicKey(), jwt: accountJwt },
    signingKeySeed: new TextDecoder().decode(signing.getSeed()),
    serviceCreds: new TextDecoder().decode(fmtCreds(serviceJwt, service)),
  };
}

/** The server configuration that enforces `auth` (appended to a server's other settings). */
export function natsAuthConfig(auth: NatsAuth): string {
  return [
    `operator: ${auth.operatorJwt}`,
    `system_account: ${auth.systemAccount.publicKey}`,
    'resolver: MEMORY',
    'resolver_preload: {',
    `  ${auth.systemAccount.publicKey}: ${auth.systemAccount.jwt}`,
    `  ${auth.account.publicKey}: ${auth.account.jwt}`,
    '}',
    '',
  ].join('\n');
}

/**
 * The authorization kept in `dir` (made there the first time: JetStream keeps an account's data
 * under its key, so the keys must outlive a restart), with the services' creds file beside it.
 */
export async function loadOrCreateNatsAuth(dir: string): Promise<NatsAuth & { credsFile: string }> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'auth.json');
  const credsFile = join(dir, 'services.creds');
  const auth: NatsAuth = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as NatsAuth)
    : await createNatsAuth();
  writeFileSync(file, JSON.stringify(auth), { mode: 0o600 });
  writeFileSync(credsFile, auth.serviceCreds, { mode: 0o600 });
  return { ...auth, credsFile };
}
