/**
 * The exchange's ES256 signing keys. The first replica to start creates one (under an
 * advisory lock, so replicas agree); all keys stay in the JWKS so tokens signed before a
 * rotation keep verifying until they expire.
 */
import { generateSigningKey, toJwks, type SigningKeyMaterial } from '@careen/auth';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { type JSONWebKeySet } from 'jose';
import { DataSource } from 'typeorm';
import { SigningKeyEntity } from './signing-key.entity';

@Injectable()
export class SigningKeyStore implements OnModuleInit {
  private keys: SigningKeyMaterial[] = [];
  /**
   * The public key set, built once: the token verifier imports its keys again whenever it is
   * handed a different key set object, which would double the cost of every new token.
   */
  private published: JSONWebKeySet = { keys: [] };

  constructor(private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query("SELECT pg_advisory_xact_lock(hashtext('careen:exchange:signing-key'))");
      if ((await manager.count(SigningKeyEntity)) === 0) {
        const key = await generateSigningKey();
        await manager.insert(SigningKeyEntity, {
          kid: key.kid,
          privateJwk: key.privateJwk,
          publicJwk: key.publicJwk,
        });
      }
    });
    const rows = await this.dataSource.manager.find(SigningKeyEntity, { order: { createdAt: 'DESC' } });
    this.keys = rows.map((row) => ({ kid: row.kid, privateJwk: row.privateJwk, publicJwk: row.publicJwk }));
    this.published = toJwks(this.keys);
  }

  /** The key new tokens are signed with: the newest. */
  current(): SigningKeyMaterial {
    const [newest] = this.keys;
    if (!newest) throw new Error('signing keys are not loaded yet');
    return newest;
  }

  jwks() {
    return this.published;
  }
}
