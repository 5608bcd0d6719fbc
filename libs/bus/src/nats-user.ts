/**
 * A NATS user of the services' account, for a client outside the hub: a JWT signed with a
 * signing key of the account (decentralized authorization), with the subjects it may publish
 * and subscribe to, ending at `expiresAt`. The server enforces all of it, and refuses the user
 * from its end on. Answered as a creds file (the JWT and the user's seed).
 */
import { createUser, encodeUser, fmtCreds, fromSeed } from '@nats-io/jwt';

export interface NatsUserIssuer {
  /** The account's public key (`A…`). */
  account: string;
  /** A signing key of the account (a seed, `SA…`). */
  signingKey: string;
}

export interface NatsUserGrant {
  name: string;
  publish: string[];
  subscribe: string[];
  expiresAt: Date;
}

export interface IssuedNatsUser {
  /** A NATS creds file: the user's JWT and seed. */
  credentials: string;
  /** The user's public key (`U…`). */
  user: string;
}

export async function issueNatsUser(issuer: NatsUserIssuer, grant: NatsUserGrant): Promise<IssuedNatsUser> {
  const user = createUser();
  const jwt = await encodeUser(
    grant.name,
    user,
    fromSeed(new TextEncoder().encode(issuer.signingKey)),
    {
      issuer_account: issuer.account,
      pub: { allow: grant.publish },
      sub: { allow: grant.subscribe },
    },
    { exp: Math.floor(grant.expiresAt.getTime() / 1000) },
  );
  return { credentials: new TextDecoder().decode(fmtCreds(jwt, user)), user: user.getPublicKey() };
}
