/**
 * `npm run nats-auth -- <dir>`: writes, or keeps when already there, the bus's decentralized JWT
 * authorization for a deployment: `auth.conf` (what nats-server includes to enforce it),
 * `services.creds` (every hub service's CAREEN_NATS_CREDS), and `account` and `signing-key`
 * (the notifier's CAREEN_NOTIFIER_NATS_ACCOUNT and CAREEN_NOTIFIER_NATS_SIGNING_KEY), beside
 * `auth.json`, which holds every key: keep it as secret as the signing key.
 */
import { loadOrCreateNatsAuth, natsAuthConfig } from '@careen/devstack';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export async function main(argv: string[]): Promise<number> {
  const [dir] = argv;
  if (!dir || argv.length > 1) {
    process.stderr.write('usage: npm run nats-auth -- <dir>\n');
    return 2;
  }
  const target = resolve(dir);
  const auth = await loadOrCreateNatsAuth(target);
  const secret = { mode: 0o600 };
  writeFileSync(join(target, 'auth.conf'), natsAuthConfig(auth), secret);
  writeFileSync(join(target, 'account'), `${auth.account.publicKey}\n`, secret);
  writeFileSync(join(target, 'signing-key'), `${auth.signingKeySeed}\n`, secret);
  process.stdout.write(
    `NATS authorization in ${target}: auth.conf (nats-server), services.creds (CAREEN_NATS_CREDS), ` +
      `account and signing-key (the notifier's CAREEN_NOTIFIER_NATS_ACCOUNT_FILE and _SIGNING_KEY_FILE)\n`,
  );
  return 0;
}
