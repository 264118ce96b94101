import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/schema.js';
import { IDENTIFIER_LABELS, type IdentifierLabel } from '../identifiers/labels.js';
import { shippedBankDirectory } from '../identifiers/normalize.js';
import { createSealedIdentifiers } from '../identifiers/sealed-identifiers.js';
import type { IndexLabel } from './blind-index.js';
import { deleteCryptoKeys, insertCryptoKeys } from './crypto-keys.repository.js';
import { SealedValueError } from './errors.js';
import { indexRowId, newKey, wrappedRow } from './key-store.js';
import type { Crypto } from './load-crypto.js';

/** The tables holding blind indexes, and the column naming the record each value is sealed to. */
const INDEXED_TABLES = [
  { table: 'report_identifiers', recordColumn: 'report_id' },
  { table: 'public_report_identifiers', recordColumn: 'public_report_id' },
  // Watchlist values are sealed to their company (issue 14).
  { table: 'watchlist_entries', recordColumn: 'company_id' },
] as const;

export interface ReindexOptions {
  db: Kysely<Database>;
  crypto: Crypto;
  /** Labels whose index key changes (default: all); `account` brings `account_nuban` with it. */
  labels?: readonly IdentifierLabel[];
  batchSize?: number;
  /** After adding the new versions, how long to wait for running instances to re-read the keys (server engine). */
  settleMs?: number;
  onStart?(info: { total: number; resumed: boolean }): void;
  /** After every batch; throwing stops the run (the next run resumes). */
  onProgress?(done: number): void;
}

export interface ReindexSummary {
  resumed: boolean;
  /** Each label's key version moved from → to. */
  labels: { label: IndexLabel; from: number; to: number }[];
  reindexed: number;
  failed: number;
  /** Up to ten `table#id` whose value did not open; their label's old key is kept and the run is unfinished. */
  failures: string[];
  /** Labels with rows still behind (written under the old key by an instance that had not seen the new): run again. */
  unfinished: string[];
  durationMs: number;
}

/**
 * Re-keys blind indexes: adds a new version of each label's index key, then moves every row to it
 * (opening its sealed value, recomputing the HMAC), a batch per transaction. While it runs the
 * service writes under the new version and searches look up both (src/modules/search), so no search
 * misses a row on either side. When no row is left on the old version, the old key is deleted.
 * An interrupted run is continued by the next (which adds no further version).
 */
export async function reindex(options: ReindexOptions): Promise<ReindexSummary> {
  const started = performance.now();
  const { db, crypto } = options;
  const batchSize = options.batchSize ?? 1000;
  const labels = options.labels ?? IDENTIFIER_LABELS;
  const indexLabels: IndexLabel[] = labels.includes('account') ? [...labels, 'account_nuban'] : [...labels];

  await crypto.refresh();
  const keys = crypto.store.indexKeys();
  const resumed = indexLabels.some((label) => (keys.get(label)?.length ?? 0) > 1);
  const moves = indexLabels.map((label) => {
    const versions = keys.get(label) ?? [];
    const newest = versions.at(-1)?.version ?? 1;
    const from = versions[0]?.version ?? 1;
    return { label, from, to: versions.length > 1 ? newest : newest + 1, adds: versions.length <= 1 };
  });
  // account and account_nuban move together: one row's two digests share one version column.
  const account = moves.find((m) => m.label === 'account');
  const nuban = moves.find((m) => m.label === 'account_nuban');
  if (account && nuban) nuban.to = account.to;
  await insertCryptoKeys(
    db,
    moves
      .filter((m) => m.adds)
      .map((m) =>
        wrappedRow(crypto.store.root, { id: indexRowId(m.label, m.to), kind: 'index', label: m.label, version: m.to }, newKey()),
      ),
  );
  await crypto.refresh();
  if (moves.some((m) => m.adds) && options.settleMs) await new Promise((resolve) => setTimeout(resolve, options.settleMs));

  const identifiers = createSealedIdentifiers({ crypto, banks: shippedBankDirectory() });
  const summary: ReindexSummary = {
    resumed,
    labels: moves.map(({ label, from, to }) => ({ label, from, to })),
    reindexed: 0,
    failed: 0,
    failures: [],
    unfinished: [],
    durationMs: 0,
  };
  const failedLabels = new Set<string>();
  let total = 0;
  for (const { table } of INDEXED_TABLES) {
    for (const label of labels) total += await countBehind(db, table, label, versionOf(moves, label));
  }
  options.onStart?.({ total, resumed });

  // One pass per table over every label being moved, paging on the id: the rows of a label are
  // spread over the whole table, so a pass per label would read the table once per label.
  const targets = sql.join(labels.map((label) => sql`(${label}, ${versionOf(moves, label)}::int)`));
  let done = 0;
  for (const { table, recordColumn } of INDEXED_TABLES) {
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = await db.transaction().execute(async (trx) => {
        const { rows } = await sql<ReindexRow>`
          select r.id::text as id, r.company_id::text as company_id, r.${sql.ref(recordColumn)}::text as record_id,
                 r.label, r.value_token, t.target
          from ${sql.table(table)} r join (values ${targets}) as t(label, target) on t.label = r.label
          where r.index_key_version < t.target and r.id > ${after}::uuid
          order by r.id limit ${batchSize} for update of r`.execute(trx);
        const updates = [];
        for (const row of rows) {
          const label = row.label as IdentifierLabel;
          let indexes: ReturnType<typeof identifiers.indexesOf>;
          try {
            const value = identifiers.open(row.value_token, {
              companyId: row.company_id,
              recordId: row.record_id,
              label,
              rowId: row.id,
            });
            indexes = identifiers.indexesOf(label, value);
          } catch (error) {
            if (!(error instanceof SealedValueError)) throw error;
          }
          if (!indexes || indexes.index_key_version !== row.target) {
            summary.failed++;
            failedLabels.add(label);
            if (summary.failures.length < 10) summary.failures.push(`${table}#${row.id}`);
            continue;
          }
          updates.push(sql`(${row.id}::uuid, ${indexes.blind_index}::bytea, ${indexes.nuban_index}::bytea, ${row.target}::int)`);
        }
        // One statement per batch: a round trip per row was most of the time.
        if (updates.length > 0) {
          await sql`update ${sql.table(table)} as r set blind_index = v.blind_index, nuban_index = v.nuban_index,
            index_key_version = v.version
            from (values ${sql.join(updates)}) as v(id, blind_index, nuban_index, version) where r.id = v.id`.execute(trx);
          summary.reindexed += updates.length;
        }
        return rows;
      });
      if (rows.length === 0) break;
      after = (rows.at(-1) as ReindexRow).id;
      done += rows.length;
      options.onProgress?.(done);
      if (rows.length < batchSize) break;
    }
  }

  // Retire the old versions of every label fully moved: a row written meanwhile by an instance that
  // had not yet seen the new version would still be behind, so each label is counted once more.
  const retire: string[] = [];
  for (const move of moves) {
    const rowLabel = move.label === 'account_nuban' ? 'account' : move.label;
    if (failedLabels.has(rowLabel)) continue;
    let behind = 0;
    for (const { table } of INDEXED_TABLES) behind += await countBehind(db, table, rowLabel, move.to);
    if (behind > 0) {
      summary.unfinished.push(move.label);
      continue;
    }
    for (let version = move.from; version < move.to; version++) retire.push(indexRowId(move.label, version));
  }
  await deleteCryptoKeys(db, retire);
  await crypto.refresh();
  summary.durationMs = Math.round(performance.now() - started);
  return summary;
}

interface ReindexRow {
  id: string;
  company_id: string;
  record_id: string;
  label: string;
  value_token: string;
  target: number;
}

function versionOf(moves: { label: string; to: number }[], label: string): number {
  return (moves.find((m) => m.label === label) as { to: number }).to;
}

async function countBehind(db: Kysely<Database>, table: string, label: string, target: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}
    where label = ${label} and index_key_version < ${target}`.execute(db);
  return rows[0]?.n ?? 0;
}
