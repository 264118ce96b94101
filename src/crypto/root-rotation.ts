import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import {
  type CryptoKeyRow,
  deleteCryptoKeys,
  insertCryptoKeys,
  listCryptoKeys,
  rewrapCryptoKey,
} from './crypto-keys.repository.js';
import { CryptoConfigError } from './errors.js';
import { kekRing, retiredRootRowId, rootOpensCheck, rootRowId, unwrapRow, wrappedRow } from './key-store.js';
import { rootMaterial, wrapKey } from './key-wrap.js';

export interface RotateRootOptions {
  db: Kysely<Database>;
  /** The root key the service runs with now (or, resuming after the key file was replaced, the new one). */
  currentRoot: Buffer;
  newRoot: Buffer;
  batchSize?: number;
  onStart?(info: { total: number; resumed: boolean }): void;
  /** After every batch; throwing stops the run (the next run resumes). */
  onProgress?(done: number): void;
  /** Once every row is under the new root, before the old one is retired: put the new key where starts read it. */
  beforeFinish?(): void;
}

export interface RootRotationSummary {
  resumed: boolean;
  rewrapped: number;
  /** Rows re-wrapped by someone else meanwhile (a second run): already under the new root. */
  skipped: number;
  durationMs: number;
}

const WRAPPED_KINDS = new Set<CryptoKeyRow['kind']>(['check', 'data', 'index', 'url', 'pseudonym', 'evidence']);

/**
 * Re-wraps every stored key (data keys, index keys, the check row, URL signing, pseudonyms) under a
 * new root's KEK, a batch per transaction, compare-and-set per row. While rows are mixed each root
 * is stored wrapped under the other (`root/<fingerprint>` rows), so instances holding either root
 * read every key and an interrupted run is continued by the next. At the end those rows are removed
 * and the old root's fingerprint is recorded as retired: starting with it is refused by name.
 * No sealed value or blind index changes: the keys themselves stay the same.
 */
export async function rotateRoot(options: RotateRootOptions): Promise<RootRotationSummary> {
  const started = performance.now();
  const { db } = options;
  const batchSize = options.batchSize ?? 50;
  const from = rootMaterial(options.currentRoot);
  const to = rootMaterial(options.newRoot);
  let rows = await listCryptoKeys(db);
  if (!rootOpensCheck(from, rows)) throw new CryptoConfigError('The configured root key does not open this database’s keys');
  const pending = rows.filter((row) => row.kind === 'root').map((row) => row.id);
  const ours = new Set([rootRowId(from.id), rootRowId(to.id)]);
  if (pending.some((id) => !ours.has(id))) {
    throw new CryptoConfigError(
      'An unfinished rotate-root to another key is in progress: run rotate-root again with that key’s file to finish it first',
    );
  }
  const resumed = pending.length > 0;
  if (from.id.equals(to.id) && !resumed) throw new CryptoConfigError('The new key is the root key already in use');
  if (!from.id.equals(to.id)) {
    await insertCryptoKeys(db, [
      wrappedRow(from, { id: rootRowId(to.id), kind: 'root' }, options.newRoot),
      wrappedRow(to, { id: rootRowId(from.id), kind: 'root' }, options.currentRoot),
    ]);
  }

  const summary: RootRotationSummary = { resumed, rewrapped: 0, skipped: 0, durationMs: 0 };
  let done = 0;
  let announced = false;
  // Repeated until nothing is left: a key added meanwhile under the old root (a `crypto rotate`) is caught too.
  for (;;) {
    rows = await listCryptoKeys(db);
    const keks = kekRing(to, rows);
    const stale = rows.filter((row) => WRAPPED_KINDS.has(row.kind) && !row.root_id.equals(to.id));
    if (!announced) options.onStart?.({ total: stale.length, resumed });
    announced = true;
    if (stale.length === 0) break;
    for (let i = 0; i < stale.length; i += batchSize) {
      const batch = stale.slice(i, i + batchSize);
      await db.transaction().execute(async (trx) => {
        for (const row of batch) {
          const key = unwrapRow(keks, row);
          if (!key) throw new CryptoConfigError(`The stored key ${row.id} does not open under either root`);
          const changed = await rewrapCryptoKey(trx, {
            id: row.id,
            fromRoot: row.root_id,
            wrapped: wrapKey(to.kek, row.id, key),
            rootId: to.id,
          });
          if (changed) summary.rewrapped++;
          else summary.skipped++;
        }
      });
      done += batch.length;
      options.onProgress?.(done);
    }
  }

  options.beforeFinish?.();
  const retired = [...kekRing(to, rows).keys()].filter((hex) => hex !== to.id.toString('hex'));
  await db.transaction().execute(async (trx) => {
    await insertCryptoKeys(
      trx,
      retired.map((hex) => ({
        id: retiredRootRowId(Buffer.from(hex, 'hex')),
        kind: 'retired-root' as const,
        label: null,
        version: null,
        wrapped: Buffer.alloc(0),
        root_id: Buffer.from(hex, 'hex'),
      })),
    );
    await deleteCryptoKeys(
      trx,
      rows.filter((row) => row.kind === 'root').map((row) => row.id),
    );
  });
  summary.durationMs = Math.round(performance.now() - started);
  return summary;
}
