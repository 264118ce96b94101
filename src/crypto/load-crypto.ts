import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Engine } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { type BlindIndex, createBlindIndex } from './blind-index.js';
import { type EncryptionKeyRow, insertEncryptionKey, listEncryptionKeys } from './encryption-keys.repository.js';
import { CryptoConfigError } from './errors.js';
import { KEY_ID_PATTERN, Keyring } from './keyring.js';
import { createKeyFile, createKeySource, keyFilePath, parseRootKey, readKeyFile } from './root-key.js';
import { createUrlSigner, type UrlSigner } from './url-signer.js';

export interface Crypto {
  keyring: Keyring;
  blindIndex: BlindIndex;
  /** Signs and checks download URLs under a key of its own (HKDF label `redflag/url-signing/v1`). */
  urlSigner: UrlSigner;
  /** Re-reads the key table, so a running instance starts sealing with a key `crypto rotate` made. */
  refresh(): Promise<void>;
}

export interface LoadCryptoOptions {
  db: Kysely<Database>;
  config: Pick<Config, 'masterKey' | 'dataDir'>;
  engine: Engine;
}

const FIRST_KEY_ID = 'k1';

interface RootKey {
  key: Buffer;
  /** Names the key's origin in messages. */
  source: string;
}

/**
 * Resolves the root key, checks it against the database and returns the keyring and blind index.
 * On an empty database it records the first key id. Used by the server, the CLI and the tests.
 */
export async function loadCrypto({ db, config, engine }: LoadCryptoOptions): Promise<Crypto> {
  let rows = await listEncryptionKeys(db);
  const root = resolveRootKey(config, engine, rows.length > 0);
  const keys = createKeySource(root.key);
  const keyring = new Keyring(keys, FIRST_KEY_ID);
  verifyKeyChecks(rows, keyring, root);

  if (rows.length === 0) {
    await insertEncryptionKey(db, {
      id: FIRST_KEY_ID,
      keyCheck: keyring.keyCheck(FIRST_KEY_ID),
      isPrimary: true,
      reencrypted: true,
    });
    // Another instance may have created it at the same moment, under another root key.
    rows = await listEncryptionKeys(db);
    verifyKeyChecks(rows, keyring, root);
  }
  keyring.setPrimary(primaryOf(rows));

  return {
    keyring,
    blindIndex: createBlindIndex(keys),
    urlSigner: createUrlSigner(keys.urlSigningKey()),
    async refresh() {
      const current = await listEncryptionKeys(db);
      verifyKeyChecks(current, keyring, root);
      keyring.setPrimary(primaryOf(current));
    },
  };
}

function resolveRootKey(config: Pick<Config, 'masterKey' | 'dataDir'>, engine: Engine, databaseHasKeys: boolean): RootKey {
  if (config.masterKey !== undefined) {
    return { key: parseRootKey(config.masterKey, 'REDFLAG_MASTER_KEY'), source: 'REDFLAG_MASTER_KEY' };
  }
  if (engine === 'server') {
    throw new CryptoConfigError(
      'REDFLAG_MASTER_KEY must be set when DATABASE_URL is used: every instance sharing the database needs the same root key ' +
        '(generate one with: npx redflag crypto new-master-key)',
    );
  }
  const file = keyFilePath(config.dataDir);
  const existing = readKeyFile(file);
  if (existing) return { key: existing, source: `The key file ${file}` };
  if (databaseHasKeys) {
    throw new CryptoConfigError(
      `The key file ${file} is missing, but this database holds values encrypted under it. ` +
        'Restore the file from a backup, or set REDFLAG_MASTER_KEY to the key that was used.',
    );
  }
  return { key: createKeyFile(file), source: `The key file ${file}` };
}

function verifyKeyChecks(rows: EncryptionKeyRow[], keyring: Keyring, root: RootKey): void {
  for (const row of rows) {
    if (!KEY_ID_PATTERN.test(row.id))
      throw new CryptoConfigError(`The encryption_keys table holds an invalid key id "${row.id}"`);
    const expected = keyring.keyCheck(row.id);
    if (row.key_check.length !== expected.length || !timingSafeEqual(row.key_check, expected)) {
      throw new CryptoConfigError(
        root.source === 'REDFLAG_MASTER_KEY'
          ? 'REDFLAG_MASTER_KEY does not match the key this database was encrypted with'
          : `${root.source} does not match the key this database was encrypted with (was REDFLAG_MASTER_KEY used before?)`,
      );
    }
  }
}

function primaryOf(rows: EncryptionKeyRow[]): string {
  const primary = rows.find((row) => row.is_primary);
  if (!primary)
    throw new CryptoConfigError(
      'The encryption_keys table has no primary key (was it edited by hand?); restore it from a backup',
    );
  return primary.id;
}
