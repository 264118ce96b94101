import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Engine } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { type BlindIndex, createBlindIndex } from './blind-index.js';
import { type CryptoKeyRow, insertCryptoKeys, listCryptoKeys } from './crypto-keys.repository.js';
import { type EncryptionKeyRow, listEncryptionKeys } from './encryption-keys.repository.js';
import { CryptoConfigError } from './errors.js';
import {
  dataKeyCheck,
  dataRowId,
  EVIDENCE_ROW,
  KeyStore,
  PSEUDONYM_ROW,
  retiredRootRowId,
  rootOpensCheck,
  URL_ROW,
} from './key-store.js';
import { initialiseKeyRows, singletonKeyRows } from './key-store.setup.js';
import { rootMaterial } from './key-wrap.js';
import { KEY_ID_PATTERN, Keyring } from './keyring.js';
import { createRequestDigest, type RequestDigest, requestDigestKey } from './request-digest.js';
import { type ResolvedRoot, rereadRootKey, resolveRootKey } from './root-key.source.js';
import { createUrlSigner, type UrlSigner } from './url-signer.js';

export interface Crypto {
  keyring: Keyring;
  /** Replaced when a refresh finds a new index-key version (`crypto reindex`) or one retired. */
  blindIndex: BlindIndex;
  /** Signs and checks download URLs under a stored key of its own (`url/1`). */
  urlSigner: UrlSigner;
  /**
   * Digests an idempotent request's body: HMAC under a key derived (HKDF, label
   * `redflag/idempotency-request/v1`) from the stored URL key, so it is worthless without the root.
   */
  requestDigest: RequestDigest;
  /** The stored keys (pseudonym key, root fingerprint) for the modules and commands that need them. */
  store: KeyStore;
  /** Custody problems worth a warning at start-up (production only). */
  warnings: string[];
  /**
   * Re-reads the key tables: a new primary key (`crypto rotate`), new or retired index versions
   * (`crypto reindex`). A key wrapped under a root this process does not hold (after `rotate-root`)
   * makes it re-read its key file; see README, "Encryption keys".
   */
  refresh(): Promise<void>;
}

/** How often an instance on a shared server re-reads the key tables (src/app.ts); key changes wait this long. */
export const KEY_REFRESH_MS = 30_000;

export interface LoadCryptoOptions {
  db: Kysely<Database>;
  config: Pick<Config, 'masterKey' | 'dataDir'> & Partial<Pick<Config, 'masterKeyFile' | 'production'>>;
  engine: Engine;
}

/**
 * Resolves the root key, checks it against the stored check row and unwraps the stored keys. On an
 * empty database it stores fresh random keys; on a database from before envelope encryption it
 * stores the keys that used to be derived, so every old token keeps opening. Used by the server,
 * the CLI and the tests.
 */
export async function loadCrypto({ db, config, engine }: LoadCryptoOptions): Promise<Crypto> {
  // Key ids before stored keys: key ids without a check row then mean a database from before
  // envelope encryption, never one another instance initialised between the two reads.
  const legacy = await listEncryptionKeys(db);
  let rows = await listCryptoKeys(db);
  const root = resolveRootKey(config, engine, rows.length > 0 || legacy.length > 0);
  if (!rows.some((row) => row.kind === 'check')) {
    await initialiseKeyRows(db, root, legacy);
    rows = await listCryptoKeys(db);
  }
  const store = new KeyStore(rootMaterial(root.key));
  refuseWrongRoot(rows, store, root);
  const added = singletonKeyRows(store.root, rows);
  if (added.length > 0) {
    await insertCryptoKeys(db, added);
    rows = await listCryptoKeys(db);
  }
  const unreadable = store.sync(rows);
  if (unreadable.length > 0)
    throw new CryptoConfigError(`Stored keys do not open under ${root.source}: ${unreadable.join(', ')}`);
  const keyring = new Keyring(store, primaryOf(verifiedDataKeys(await listEncryptionKeys(db), store)));

  const crypto: Crypto = {
    keyring,
    blindIndex: createBlindIndex(store.indexKeys()),
    urlSigner: createUrlSigner(store.key(URL_ROW)),
    requestDigest: createRequestDigest(requestDigestKey(store.key(URL_ROW))),
    store,
    warnings: root.warnings,
    async refresh() {
      // Key ids first: a key id committed after this read has its stored key in the next read.
      const keyIds = await listEncryptionKeys(db);
      const current = await listCryptoKeys(db);
      if (store.sync(current).length > 0) adoptNewRoot(current, store, config, root);
      crypto.blindIndex = createBlindIndex(store.indexKeys());
      keyring.setPrimary(primaryOf(verifiedDataKeys(keyIds, store)));
    },
  };
  return crypto;
}

/** The pseudonym key of the audit API (src/modules/audit). */
export const pseudonymKey = (crypto: Crypto) => crypto.store.key(PSEUDONYM_ROW);
/** The key of evidence-file hashes (src/modules/uploads). */
export const evidenceKey = (crypto: Crypto) => crypto.store.key(EVIDENCE_ROW);

function refuseWrongRoot(rows: CryptoKeyRow[], store: KeyStore, root: ResolvedRoot): void {
  if (rootOpensCheck(store.root, rows)) return;
  const retired = rows.find((row) => row.id === retiredRootRowId(store.root.id));
  if (retired) {
    throw new CryptoConfigError(
      `${root.source} holds a root key that was retired by "crypto rotate-root" on ${retired.created_at.toISOString()}: ` +
        'start with the new root key (the --new-key-file given to rotate-root)',
    );
  }
  throw new CryptoConfigError(
    root.source === 'REDFLAG_MASTER_KEY'
      ? 'REDFLAG_MASTER_KEY does not match the key this database was encrypted with'
      : `${root.source} does not match the key this database was encrypted with (was REDFLAG_MASTER_KEY used before?)`,
  );
}

/**
 * After `rotate-root` finished, rows added under the new root (a later rotation's data key, a
 * reindex's index key) do not open for an instance still holding the old root. If its root came
 * from a file, the file is read again: an operator who replaced the file's contents is followed
 * without a restart. Otherwise the instance keeps serving with the keys it holds and says so.
 */
function adoptNewRoot(rows: CryptoKeyRow[], store: KeyStore, config: LoadCryptoOptions['config'], root: ResolvedRoot): void {
  const fresh = rereadRootKey(config, root);
  if (!fresh || !rootOpensCheck(rootMaterial(fresh), rows)) {
    throw new CryptoConfigError(
      `New keys were stored under a root key this instance does not hold (crypto rotate-root); restart it with the new root key`,
    );
  }
  store.useRoot(rootMaterial(fresh));
  const unreadable = store.sync(rows);
  if (unreadable.length > 0) throw new CryptoConfigError(`Stored keys do not open under the new root: ${unreadable.join(', ')}`);
}

/** The key ids, each checked against its stored data key (a row swapped by hand is refused). */
function verifiedDataKeys(rows: EncryptionKeyRow[], store: KeyStore): EncryptionKeyRow[] {
  for (const row of rows) {
    if (!KEY_ID_PATTERN.test(row.id) || !store.has(dataRowId(row.id)))
      throw new CryptoConfigError(`The encryption_keys table holds a key id "${row.id}" with no stored key`);
    const expected = dataKeyCheck(store.encryptionKey(row.id));
    if (row.key_check.length !== expected.length || !timingSafeEqual(row.key_check, expected)) {
      throw new CryptoConfigError(`The check value of key ${row.id} does not match its stored key (was the table edited?)`);
    }
  }
  return rows;
}

function primaryOf(rows: EncryptionKeyRow[]): string {
  const primary = rows.find((row) => row.is_primary);
  if (!primary)
    throw new CryptoConfigError(
      'The encryption_keys table has no primary key (was it edited by hand?); restore it from a backup',
    );
  return primary.id;
}
