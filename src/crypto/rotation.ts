import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { insertCryptoKeys } from './crypto-keys.repository.js';
import { insertEncryptionKey, listEncryptionKeys, markKeyReencrypted, retirePrimaryKey } from './encryption-keys.repository.js';
import { SealedValueError } from './errors.js';
import { dataKeyCheck, dataRowId, newKey, wrappedRow } from './key-store.js';
import { KEY_ID_PATTERN, keyIdNumber, TOKEN_VERSION } from './keyring.js';
import type { Crypto } from './load-crypto.js';
import type { SealedColumn } from './sealed-columns.js';

export interface ColumnSummary {
  table: string;
  column: string;
  reencrypted: number;
  /** Changed by someone else between read and write; the new value is already on the primary key. */
  skipped: number;
  failed: number;
}

export interface RotationSummary {
  keyId: string;
  previousKeyId: string | undefined;
  /** True when an interrupted rotation to `keyId` was continued instead of adding a key. */
  resumed: boolean;
  reencrypted: number;
  skipped: number;
  failed: number;
  /** Up to ten `table.column#id` of values that did not open; the rotation stays unfinished. */
  failures: string[];
  columns: ColumnSummary[];
  durationMs: number;
}

export interface RotateOptions {
  db: Kysely<Database>;
  crypto: Crypto;
  columns: readonly SealedColumn[];
  batchSize?: number;
  /**
   * After adding a key, how long to wait before sealing under it: on a shared server, long enough
   * for every running instance to re-read the key table (they open values only with keys they hold).
   */
  settleMs?: number;
  /** Called once the values to re-encrypt are counted, then after every batch. */
  onStart?(info: { keyId: string; resumed: boolean; total: number }): void;
  onProgress?(done: number): void;
}

/**
 * Makes a new key primary and re-encrypts every sealed value under it, one transaction per batch,
 * paging on the id column. Values already under the primary key are not touched, so a run that was
 * interrupted is continued by the next one (which then adds no further key). Old keys stay stored:
 * every value stays readable throughout.
 */
export async function rotateKeys(options: RotateOptions): Promise<RotationSummary> {
  const started = performance.now();
  const { db, crypto } = options;
  const batchSize = options.batchSize ?? 500;
  const { keyId, previousKeyId, resumed } = await choosePrimary(db, crypto);
  await crypto.refresh();
  if (!resumed && options.settleMs) await new Promise((resolve) => setTimeout(resolve, options.settleMs));
  crypto.keyring.setPrimary(keyId);

  // A token is current when it is under the new key and of the current version (padded): a v1
  // token under the same key is re-sealed too.
  const prefix = `${TOKEN_VERSION}.${keyId}.`;
  let total = 0;
  for (const column of options.columns) total += await countStale(db, column, prefix);
  options.onStart?.({ keyId, resumed, total });

  const summary: RotationSummary = {
    keyId,
    previousKeyId,
    resumed,
    reencrypted: 0,
    skipped: 0,
    failed: 0,
    failures: [],
    columns: [],
    durationMs: 0,
  };
  let done = 0;
  for (const column of options.columns) {
    const result: ColumnSummary = { table: column.table, column: column.tokenColumn, reencrypted: 0, skipped: 0, failed: 0 };
    let after: readonly unknown[] | undefined;
    for (;;) {
      const batch = await db.transaction().execute(async (trx) => {
        const rows = await staleBatch(trx, column, prefix, after, batchSize);
        for (const row of rows) {
          let fresh: string;
          try {
            const context = column.context(row);
            fresh = crypto.keyring.seal(crypto.keyring.open(row.__token, context), context);
          } catch (error) {
            if (!(error instanceof SealedValueError)) throw error;
            result.failed++;
            if (summary.failures.length < 10)
              summary.failures.push(`${column.table}.${column.tokenColumn}#${row.__id.map(String).join('/')}`);
            continue;
          }
          // Compare-and-set: a value rewritten meanwhile (already under the new key) is left alone.
          const sameRow = idColumns(column).map((name, i) => sql`${sql.ref(name)} = ${row.__id[i]} and `);
          const updated = await sql`update ${sql.table(column.table)} set ${sql.ref(column.tokenColumn)} = ${fresh}
            where ${sql.join(sameRow, sql``)}${sql.ref(column.tokenColumn)} = ${row.__token}`.execute(trx);
          if (Number(updated.numAffectedRows ?? 0) === 1) result.reencrypted++;
          else result.skipped++;
        }
        return rows;
      });
      if (batch.length === 0) break;
      after = (batch.at(-1) as StaleRow).__id;
      done += batch.length;
      options.onProgress?.(done);
      if (batch.length < batchSize) break;
    }
    summary.columns.push(result);
    summary.reencrypted += result.reencrypted;
    summary.skipped += result.skipped;
    summary.failed += result.failed;
  }

  if (summary.failed === 0) await markKeyReencrypted(db, keyId);
  summary.durationMs = Math.round(performance.now() - started);
  return summary;
}

async function choosePrimary(
  db: Kysely<Database>,
  crypto: Crypto,
): Promise<{ keyId: string; previousKeyId: string | undefined; resumed: boolean }> {
  const keys = await listEncryptionKeys(db);
  const primary = keys.find((key) => key.is_primary);
  if (primary && primary.reencrypted_at === null) {
    const previous = keys.filter((key) => key.id !== primary.id).at(-1);
    return { keyId: primary.id, previousKeyId: previous?.id, resumed: true };
  }
  const highest = Math.max(0, ...keys.filter((key) => KEY_ID_PATTERN.test(key.id)).map((key) => keyIdNumber(key.id)));
  const keyId = `k${highest + 1}`;
  const key = newKey();
  await db.transaction().execute(async (trx) => {
    if (primary && (await retirePrimaryKey(trx, primary.id)) !== 1) {
      throw new Error('Another rotation changed the primary key at the same time; run crypto rotate again');
    }
    if (!(await insertEncryptionKey(trx, { id: keyId, keyCheck: dataKeyCheck(key), isPrimary: true, reencrypted: false }))) {
      throw new Error('Another rotation added a key at the same time; run crypto rotate again');
    }
    // The new data key is random, stored wrapped under the root's KEK (src/crypto/key-store.ts).
    await insertCryptoKeys(trx, [
      wrappedRow(crypto.store.root, { id: dataRowId(keyId), kind: 'data', version: keyIdNumber(keyId) }, key),
    ]);
  });
  return { keyId, previousKeyId: primary?.id, resumed: false };
}

interface StaleRow extends Record<string, unknown> {
  /** The row's key, a value per id column. */
  __id: unknown[];
  __token: string;
}

const idColumns = (column: SealedColumn): readonly string[] =>
  typeof column.idColumn === 'string' ? [column.idColumn] : column.idColumn;

async function countStale(db: Kysely<Database>, column: SealedColumn, prefix: string): Promise<number> {
  const { rows } = await sql<{ count: number }>`select count(*) as count from ${sql.table(column.table)}
    where ${sql.ref(column.tokenColumn)} is not null and ${sql.ref(column.tokenColumn)} not like ${`${prefix}%`}`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

function staleBatch(
  db: Kysely<Database>,
  column: SealedColumn,
  prefix: string,
  after: readonly unknown[] | undefined,
  limit: number,
): Promise<StaleRow[]> {
  const token = sql.ref(column.tokenColumn);
  const names = idColumns(column);
  // A row value pages a composite key as it pages one column: (job_id, seq) > ($1, $2).
  const id = sql`(${sql.join(names.map((name) => sql.ref(name)))})`;
  const extra = [...new Set([...names, ...column.contextColumns])].map((name) => sql`, ${sql.ref(name)}`);
  const page = after === undefined ? sql`` : sql`and ${id} > (${sql.join(after.map((value) => sql`${value}`))})`;
  return sql<Record<string, unknown> & { __token: string }>`select ${token} as "__token"${sql.join(extra, sql``)}
    from ${sql.table(column.readFrom ?? column.table)}
    where ${token} is not null and ${token} not like ${`${prefix}%`} ${page}
    order by ${sql.join(names.map((name) => sql.ref(name)))} limit ${limit}`
    .execute(db)
    .then((result) => result.rows.map((row) => ({ ...row, __id: names.map((name) => row[name]) })));
}
