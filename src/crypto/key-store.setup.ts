import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { INDEX_LABELS } from './blind-index.js';
import { insertCryptoKeys, type NewCryptoKeyRow } from './crypto-keys.repository.js';
import { type EncryptionKeyRow, insertEncryptionKey } from './encryption-keys.repository.js';
import { CryptoConfigError } from './errors.js';
import {
  checkRow,
  dataKeyCheck,
  dataRowId,
  EVIDENCE_ROW,
  indexRowId,
  newKey,
  PSEUDONYM_ROW,
  URL_ROW,
  wrappedRow,
} from './key-store.js';
import { type RootMaterial, rootMaterial } from './key-wrap.js';
import { createKeySource } from './root-key.js';
import type { ResolvedRoot } from './root-key.source.js';

const FIRST_KEY_ID = 'k1';

/**
 * Stores the key hierarchy once, in one transaction; rows another instance stored first win (and
 * this instance then checks its root against them). A database from before envelope encryption
 * (its `encryption_keys` rows checked against root-derived values) stores the keys it used to
 * derive, so every existing token and blind index stays valid; otherwise every key is random.
 */
export async function initialiseKeyRows(db: Kysely<Database>, root: ResolvedRoot, legacy: EncryptionKeyRow[]): Promise<void> {
  const material = rootMaterial(root.key);
  const derived = createKeySource(root.key);
  if (legacy.length > 0) verifyLegacyChecks(legacy, derived, root);
  const dataKeys =
    legacy.length > 0
      ? legacy.map((row) => ({ id: row.id, key: derived.encryptionKey(row.id) }))
      : [{ id: FIRST_KEY_ID, key: newKey() }];
  const rows: NewCryptoKeyRow[] = [
    checkRow(material),
    ...dataKeys.map(({ id, key }) =>
      wrappedRow(material, { id: dataRowId(id), kind: 'data', version: Number(id.slice(1)) }, key),
    ),
    ...INDEX_LABELS.map((label) =>
      wrappedRow(
        material,
        { id: indexRowId(label, 1), kind: 'index', label, version: 1 },
        legacy.length > 0 ? derived.indexKey(label) : newKey(),
      ),
    ),
    wrappedRow(material, { id: URL_ROW, kind: 'url' }, legacy.length > 0 ? derived.urlSigningKey() : newKey()),
    ...singletonKeyRows(material, []),
  ];
  await db.transaction().execute(async (trx) => {
    await insertCryptoKeys(trx, rows);
    for (const { id, key } of dataKeys) {
      if (legacy.length > 0) {
        await trx
          .updateTable('encryption_keys')
          .set({ key_check: dataKeyCheck(key) })
          .where('id', '=', id)
          .execute();
      } else {
        await insertEncryptionKey(trx, { id, keyCheck: dataKeyCheck(key), isPrimary: true, reencrypted: true });
      }
    }
  });
}

/**
 * Keys added to the hierarchy after a database was initialised (the pseudonym and evidence keys):
 * random, stored the first time a process without them starts.
 */
export function singletonKeyRows(root: RootMaterial, rows: readonly { id: string }[]): NewCryptoKeyRow[] {
  const have = new Set(rows.map((row) => row.id));
  return [
    { id: PSEUDONYM_ROW, kind: 'pseudonym' as const },
    { id: EVIDENCE_ROW, kind: 'evidence' as const },
  ]
    .filter((row) => !have.has(row.id))
    .map((row) => wrappedRow(root, row, newKey()));
}

function verifyLegacyChecks(rows: EncryptionKeyRow[], derived: ReturnType<typeof createKeySource>, root: ResolvedRoot): void {
  for (const row of rows) {
    const expected = derived.keyCheck(row.id);
    if (row.key_check.length !== expected.length || !timingSafeEqual(row.key_check, expected)) {
      throw new CryptoConfigError(
        root.source === 'REDFLAG_MASTER_KEY'
          ? 'REDFLAG_MASTER_KEY does not match the key this database was encrypted with'
          : `${root.source} does not match the key this database was encrypted with (was REDFLAG_MASTER_KEY used before?)`,
      );
    }
  }
}
