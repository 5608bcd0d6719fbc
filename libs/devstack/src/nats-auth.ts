/**
 * nats-server's decentralized JWT authorization for a Careen bus: an operator, a system account
 * and the `CAREEN` account (JetStream on), whose JWTs the server preloads into its built-in
 * resolver (which takes updates); the services' user, free within the account; a signing key of
 * the account with which the notifier and the exchange issue users limited to a project or an
 * org; and what the exchange revokes those users with: a signing key of the operator and a
 * system-account user that may only look up and update the `CAREEN` account. What `nsc` would
 * make, made here so that the dev stack and the tests run with authorization on.
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
  /**
   * A signing key of the operator (a seed, `SO…`) and a creds file of a system-account user
   * limited to the `CAREEN` account's claims: with both the exchange re-signs the account with
   * the users it revokes. Absent from authorization made before revocations were pushed.
   */
  operatorSigningKeySeed?: string;
  systemCreds?: string;
}

/** No limits on connections and messages but the server's own (an account without limits set gets none). */
const OPEN = {
  subs: -1,
  data: -1,
  payload: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
  conn: -1,
  leaf: -1,
};

/** The same, with JetStream on (the services' account); the system account has no JetStream. */
const UNLIMITED = { ...OPEN, mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1 };

export async function createNatsAuth(): Promise<NatsAuth> {
  const operator = createOperator();
  const operatorSigning = createOperator();
  const system = createAccount();
  const account = createAccount();
  const signing = createAccount();
  const service = createUser();
  const systemUser = createUser();
  const operatorJwt = await encodeOperator('careen', operator, {
    system_account: system.getPublicKey(),
    signing_keys: [operatorSigning.getPublicKey()],
  });
  const systemJwt = await encodeAccount('SYS', system, { limits: OPEN }, { signer: operator });
  const accountJwt = await encodeAccount(
    'CAREEN',
    account,
    { limits: UNLIMITED, signing_keys: [signing.getPublicKey()] },
    { signer: operator },
  );
  const serviceJwt = await encodeUser('careen-services', service, account);
  const claims = `$SYS.REQ.ACCOUNT.${account.getPublicKey()}.CLAIMS`;
  const systemUserJwt = await encodeUser('careen-revocations', systemUser, system, {
    pub: { allow: [`${claims}.LOOKUP`, `${claims}.UPDATE`] },
    sub: { allow: ['_INBOX.>'] },
  });
  return {
    operatorJwt,
    systemAccount: { publicKey: system.getPublicKey(), jwt: systemJwt },
    account: { publicKey: account.getPublicKey(), jwt: accountJwt },
    signingKeySeed: new TextDecoder().decode(signing.getSeed()),
    serviceCreds: new TextDecoder().decode(fmtCreds(serviceJwt, service)),
    operatorSigningKeySeed: new TextDecoder().decode(operatorSigning.getSeed()),
    systemCreds: new TextDecoder().decode(fmtCreds(systemUserJwt, systemUser)),
  };
}

/**
 * The server configuration that enforces `auth` (appended to a server's other settings). The
 * resolver keeps the accounts' JWTs as last pushed in `resolverDir`, one per server.
 */
export function natsAuthConfig(auth: NatsAuth, resolverDir: string): string {
  return [
    `operator: ${auth.operatorJwt}`,
    `system_account: ${auth.systemAccount.publicKey}`,
    `resolver: { type: full, dir: ${JSON.stringify(resolverDir)}, allow_delete: false }`,
    'resolver_preload: {',
    `  ${auth.systemAccount.publicKey}: ${auth.systemAccount.jwt}`,
    `  ${auth.account.publicKey}: ${auth.account.jwt}`,
    '}',
    '',
  ].join('\n');
}

export interface StoredNatsAuth extends NatsAuth {
  /** The services' creds file. */
  credsFile: string;
  /** The exchange's system-user creds file, where the authorization has one. */
  systemCredsFile?: string;
}

/**
 * The authorization kept in `dir` (made there the first time: JetStream keeps an account's data
 * under its key, so the keys must outlive a restart), with the creds files beside it.
 */
export async function loadOrCreateNatsAuth(dir: string): Promise<StoredNatsAuth> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'auth.json');
  const secret = { mode: 0o600 };
  const auth: NatsAuth = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as NatsAuth)
    : await createNatsAuth();
  writeFileSync(file, JSON.stringify(auth), secret);
  const credsFile = join(dir, 'services.creds');
  writeFileSync(credsFile, auth.serviceCreds, secret);
  if (!auth.systemCreds) return { ...auth, credsFile };
  const systemCredsFile = join(dir, 'system.creds');
  writeFileSync(systemCredsFile, auth.systemCreds, secret);
  return { ...auth, credsFile, systemCredsFile };
}
