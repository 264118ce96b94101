import cliProgress from 'cli-progress';
import { loadConfig } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { databaseOptions, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { KEY_REFRESH_MS, loadCrypto } from './load-crypto.js';
import { type RotationSummary, rotateKeys } from './rotation.js';
import { type SealedColumn, sealedColumns } from './sealed-columns.js';

/** Opens the configured database, checks the root key and rotates; `columns` is the registry by default. */
export async function rotate(
  options: { batchSize: number; settleSeconds?: number; json?: boolean },
  columns: readonly SealedColumn[] = sealedColumns,
): Promise<RotationSummary> {
  const config = loadConfig();
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(databaseOptions(config, 2));
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    // Re-encrypting through a running server's socket would hold its only connection for minutes.
    throw new Error(
      `crypto rotate needs the embedded database to itself, and a Redflag process (pid ${error.pid}) is using ${error.dataDir}. ` +
        'Stop the server, run npx redflag crypto rotate, then start the server again.',
    );
  }
  const bar =
    !options.json && process.stderr.isTTY
      ? new cliProgress.SingleBar(
          { format: 'Re-encrypting [{bar}] {percentage}% | {value}/{total} values | ETA {eta_formatted}', hideCursor: true },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  try {
    await migrateToLatest(database.db);
    const crypto = await loadCrypto({ db: database.db, config, engine: database.engine });
    return await rotateKeys({
      db: database.db,
      crypto,
      columns,
      batchSize: options.batchSize,
      // Running instances open values only with keys they hold: give them time to re-read the key table.
      settleMs:
        options.settleSeconds !== undefined
          ? options.settleSeconds * 1000
          : database.engine === 'server'
            ? KEY_REFRESH_MS + 5_000
            : 0,
      onStart: ({ total }) => {
        if (total > 0) bar?.start(total, 0);
      },
      onProgress: (done) => bar?.update(done),
    });
  } finally {
    bar?.stop();
    await database.close();
  }
}

export function describeRotation(summary: RotationSummary): string {
  const head = summary.resumed
    ? `Resumed the interrupted rotation to key ${summary.keyId}`
    : `Rotated to key ${summary.keyId}${summary.previousKeyId ? ` (previous primary ${summary.previousKeyId})` : ''}`;
  if (summary.columns.length === 0) return `${head}. No table holds sealed values yet, so there was nothing to re-encrypt.`;
  const tables = new Set(summary.columns.map((c) => c.table)).size;
  const lines = [
    `${head}: ${summary.reencrypted} value(s) re-encrypted in ${summary.columns.length} column(s) of ${tables} table(s), ` +
      `${summary.skipped} changed meanwhile and left as written, in ${(summary.durationMs / 1000).toFixed(1)} s.`,
  ];
  if (summary.failed > 0) {
    lines.push(
      `${summary.failed} value(s) did not open and stay under their old key: ${summary.failures.join(', ')}. ` +
        'The rotation is unfinished; the next crypto rotate retries them.',
    );
  } else {
    lines.push('Every stored value is now under the primary key; older keys remain able to read backups.');
  }
  return lines.join('\n');
}
