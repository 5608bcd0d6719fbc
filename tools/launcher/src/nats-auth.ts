/**
 * `npm run nats-auth -- <dir> [--resolver-dir <path>]`: writes, or keeps when already there, the
 * bus's decentralized JWT authorization for a deployment: `auth.conf` (what nats-server includes
 * to enforce it; its resolver keeps the accounts' JWTs in the resolver folder, `/data/jwt` unless
 * given, beside the server's JetStream store in the deployment forms), `services.creds` (every
 * hub service's CAREEN_NATS_CREDS), `account` and `signing-key` (the notifier's and the
 * exchange's NATS account and signing key), `operator-signing-key` and `system.creds` (with which
 * the exchange revokes bus users), beside `auth.json`, which holds every key: keep it as secret
 * as the signing keys.
 */
import { loadOrCreateNatsAuth, natsAuthConfig } from '@careen/devstack';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = 'usage: npm run nats-auth -- <dir> [--resolver-dir <path>]\n';

export async function main(argv: string[]): Promise<number> {
  let dir: string | undefined;
  let resolverDir: string;
  try {
    const parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'resolver-dir': { type: 'string', default: '/data/jwt' } },
    });
    if (parsed.positionals.length !== 1) throw new Error('one folder is needed');
    dir = parsed.positionals[0];
    resolverDir = parsed.values['resolver-dir'];
  } catch (error) {
    process.stderr.write(`nats-auth: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const target = resolve(dir!);
  const auth = await loadOrCreateNatsAuth(target);
  const secret = { mode: 0o600 };
  writeFileSync(join(target, 'auth.conf'), natsAuthConfig(auth, resolverDir), secret);
  writeFileSync(join(target, 'account'), `${auth.account.publicKey}\n`, secret);
  writeFileSync(join(target, 'signing-key'), `${auth.signingKeySeed}\n`, secret);
  if (auth.operatorSigningKeySeed) {
    writeFileSync(join(target, 'operator-signing-key'), `${auth.operatorSigningKeySeed}\n`, secret);
  }
  process.stdout.write(
    `NATS authorization in ${target}: auth.conf (nats-server, resolver in ${resolverDir}), ` +
      `services.creds (CAREEN_NATS_CREDS), account and signing-key (the notifier's and the exchange's ` +
      `NATS account and signing key)` +
      (auth.operatorSigningKeySeed
        ? ", operator-signing-key and system.creds (the exchange's, to revoke bus users)\n"
        : '\nThis authorization was made before bus users could be revoked at once: their credentials end at their own end.\n'),
  );
  return 0;
}
