/**
 * Revoking users of an account at once: the account's JWT, as the servers hold it, re-signed
 * with the users in its `revocations` (each by public key, refusing every JWT of that user
 * issued until the given second). The servers' built-in resolver takes the update, closes the
 * revoked users' connections and refuses them from then on. Re-signing an account is the
 * operator's power: it takes a signing key of the operator, and a connection of a system-account
 * user that may look the account's claims up and update them.
 */
import { decode, encodeAccount, type Account } from '@nats-io/jwt';
import { type NatsConnection } from '@nats-io/transport-node';

export interface AccountSigner {
  /** The account's public key (`A…`). */
  account: string;
  /** A signing key of the operator (a seed, `SO…`). */
  operatorSigningKey: string;
}

export type RevocationList = Record<string, number>;

export interface RevocationChange {
  /** Users to have revoked, with the second from which on; one already revoked keeps its own. */
  revoke: RevocationList;
  /** Users of ours whose JWTs have ended: their entries go. Entries of anyone else's stay. */
  forget: readonly string[];
}

/** The account's revocations after `change`, or undefined when it changes nothing. */
export function nextRevocations(
  current: RevocationList,
  change: RevocationChange,
): RevocationList | undefined {
  const next: RevocationList = { ...current };
  for (const user of change.forget) delete next[user];
  for (const [user, since] of Object.entries(change.revoke)) next[user] ??= since;
  const same =
    Object.keys(next).length === Object.keys(current).length &&
    Object.entries(next).every(([user, since]) => current[user] === since);
  return same ? undefined : next;
}

/**
 * Applies `change` to the account as the server holds it, if it changes anything. Answers whether
 * an update was pushed. Throws when the server refuses it.
 */
export async function syncNatsRevocations(
  system: NatsConnection,
  signer: AccountSigner,
  change: RevocationChange,
): Promise<boolean> {
  const claims = `$SYS.REQ.ACCOUNT.${signer.account}.CLAIMS`;
  const lookup = await system.request(`${claims}.LOOKUP`, '', { timeout: 5_000 });
  const current = decode<Partial<Account>>(lookup.string());
  const revocations = nextRevocations(current.nats.revocations ?? {}, change);
  if (!revocations) return false;
  const jwt = await encodeAccount(
    current.name,
    signer.account,
    { ...current.nats, revocations },
    { signer: signer.operatorSigningKey },
  );
  const answer = await system.request(`${claims}.UPDATE`, jwt, { timeout: 5_000 });
  const { data, error } = answer.json<{
    data?: { code: number };
    error?: { code: number; description: string };
  }>();
  if (data?.code !== 200) {
    throw new Error(`the NATS server refused the account update: ${error?.description ?? answer.string()}`);
  }
  return true;
}
