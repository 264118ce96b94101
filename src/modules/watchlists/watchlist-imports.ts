import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Database, WatchlistImportsTable } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { type Columns, HEADER_RULE, headerColumns } from '../csv-header.js';
import { MAX_RECORD_BYTES, RecordGuard, refusedBecause } from '../csv-record-guard.js';
import { isUuid } from '../ids.js';
import type { WatchlistsService } from './watchlists.service.js';

export const MAX_IMPORT_ROWS = 1_000_000;
/** Rows sealed and inserted together (one transaction with the progress counters). */
const BATCH = 1000;

export interface ImportView {
  id: string;
  status: string;
  /** Lines of the file read so far, the header included: a re-sent file skips these. */
  processedLines: number;
  importedRows: number;
  failedRows: number;
  createdAt: string;
  updatedAt: string;
}

const toView = (row: Selectable<WatchlistImportsTable>): ImportView => ({
  id: row.id,
  status: row.status,
  processedLines: row.processed_rows,
  importedRows: row.imported_rows,
  failedRows: row.failed_rows,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

/** How long a reader holds an import without committing a batch before another upload may take it over. */
const LEASE_SECONDS = 300;
/** A reader whose lease lapsed (it stalled for minutes) and another upload took the import over. */
const takenOver = () => new AppError('INVALID_STATE', 'This upload stalled and another took the import over; its lines are kept');
/** While a resumed file's lines already read are skipped, the lease is renewed every this many. */
const SKIP_RENEW_LINES = 10_000;

/**
 * CSV imports of up to 1,000,000 rows (`label,value,ref`, a header first): the file is streamed
 * through csv-parse in batches of 1,000, each committed with the import's progress, so memory stays
 * bounded and an interrupted upload is resumed by sending the file again (the lines already read
 * are skipped). A bad row is an error line in the report, never the end of the file.
 */
export function createWatchlistImports(deps: { db: Kysely<Database>; watchlists: WatchlistsService }) {
  const { db, watchlists } = deps;

  async function own(companyId: string, id: string) {
    const row = isUuid(id)
      ? await db
          .selectFrom('watchlist_imports')
          .selectAll()
          .where('id', '=', id.toLowerCase())
          .where('company_id', '=', companyId)
          .executeTakeFirst()
      : undefined;
    if (!row) throw AppError.notFound('Import not found');
    return row;
  }

  /** Holds the import longer while its lines already read are skipped; refused once another took it over. */
  async function renewLease(id: string, receiver: string): Promise<void> {
    const held = await db
      .updateTable('watchlist_imports')
      .set({ receiving_until: sql`now() + ${sql.lit(`${LEASE_SECONDS} seconds`)}::interval` })
      .where('id', '=', id)
      .where('receiving_by', '=', receiver)
      .executeTakeFirst();
    if (held.numUpdatedRows === 0n) {
      throw takenOver();
    }
  }

  /** The import, now this request's to read a file into; undefined while another request's lease runs. */
  function claim(id: string, receiver: string) {
    return db
      .updateTable('watchlist_imports')
      .set({ receiving_by: receiver, receiving_until: sql`now() + ${sql.lit(`${LEASE_SECONDS} seconds`)}::interval` })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('receiving_until', 'is', null), eb('receiving_until', '<', sql<Date>`now()`)]))
      .returningAll()
      .executeTakeFirst();
  }

  return {
    async create(companyId: string): Promise<ImportView> {
      const row = await db
        .insertInto('watchlist_imports')
        .values({ id: randomUUID(), company_id: companyId, status: 'running' })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toView(row);
    },

    get: async (companyId: string, id: string) => toView(await own(companyId, id)),

    async errors(companyId: string, id: string, query: { page: number; limit: number }) {
      const row = await own(companyId, id);
      const data = await db
        .selectFrom('watchlist_import_errors')
        .select(['row as line', 'message'])
        .where('import_id', '=', row.id)
        .orderBy('row')
        .limit(query.limit)
        .offset((query.page - 1) * query.limit)
        .execute();
      return { data, meta: { total: row.failed_rows, page: query.page, limit: query.limit } };
    },

    /** Reads the file from where the import stands; returns its state when the file ends or breaks off. */
    async receive(companyId: string, id: string, file: Readable, noOtherFile?: () => Promise<void>): Promise<ImportView> {
      const owned = await own(companyId, id);
      if (owned.status === 'done') throw new AppError('INVALID_STATE', 'This import is finished; start a new one');
      const receiver = randomUUID();
      const start = await claim(owned.id, receiver);
      if (!start) {
        // Let the upload through unread so the answer gets out on a connection that stays usable.
        file.resume();
        throw new AppError(
          'INVALID_STATE',
          'A file is being read into this import already; wait for it to finish (GET the import for its progress), then send the rest',
        );
      }
      let processed = start.processed_rows;
      // Line 1 names the columns, in any order; a file without such a line is refused before a row
      // is added (its first row would have been taken for the header and lost).
      let header: Columns | undefined;
      let headerRead = false;
      const parser = parse({
        columns: (fields: string[]) => {
          headerRead = true;
          header = headerColumns(fields);
          const nameOf = (i: number) =>
            i === header?.label ? 'label' : i === header?.value ? 'value' : i === header?.ref ? 'ref' : false;
          return fields.map((_, i) => nameOf(i));
        },
        relax_column_count: true,
        skip_empty_lines: true,
        trim: true,
        info: true,
        skip_records_with_error: true,
        // Never reached (the guard keeps records shorter): a second fence against a field gathering the file.
        max_record_size: MAX_RECORD_BYTES * 2,
      });
      const skipped: Array<{ line: number; message: string }> = [];
      parser.on('skip', (err: { lines?: number; code?: string }) => {
        const line = err.lines ?? processed + 1;
        // A resumed file's lines already read were counted then.
        if (line <= processed) return;
        // The code only: csv-parse's message quotes the value.
        skipped.push({ line, message: `is not valid CSV (${err.code ?? 'unreadable'})` });
      });
      // A broken upload ends the parse gracefully (what arrived is still read); the lines after the
      // last committed batch are read again on resume. Every way a stream can break counts: an
      // error, a close without an end, or a stream already destroyed before this point; pipe() alone
      // would leave the parse waiting forever on the last two.
      let broken = false;
      // A bad line is one failed row and the rest is read (decision 0113): csv-parse alone, meeting a
      // quote that closes a value before the end of its field, dropped the rest of the file.
      const guard = new RecordGuard(MAX_RECORD_BYTES);
      const breakOff = () => {
        broken = true;
        file.unpipe(guard);
        guard.unpipe(parser);
        if (!parser.writableEnded) parser.end();
      };
      file.on('error', breakOff);
      file.on('close', () => {
        if (!file.readableEnded) breakOff();
      });
      if (file.destroyed) breakOff();
      else file.pipe(guard).pipe(parser);
      // csv-parse counts the empty line after a final newline as a line; the count of lines read must
      // not. Listened to after pipe() so the parser is attached before the stream flows.
      let endsWithNewline = false;
      file.on('data', (chunk: Buffer) => {
        if (chunk.length > 0) endsWithNewline = chunk[chunk.length - 1] === 10;
      });
      let batch: Array<{ line: number; label: string; value: string; ref?: string }> = [];
      let done = false;

      const flush = async (lastLine: number) => {
        const items = batch;
        const bad = skipped.splice(0);
        batch = [];
        await db.transaction().execute(async (trx) => {
          const results = await watchlists.add(
            companyId,
            items.map(({ label, value, ref }) => ({ label, value, ...(ref ? { ref } : {}) })),
            trx,
          );
          const errors = [
            ...bad,
            // A line's error names its column only when it is not the value (the value's message names its kind).
            ...results.flatMap((r, i) =>
              'error' in r ? [{ line: items[i]?.line ?? 0, message: lineMessage(r.error, items) }] : [],
            ),
          ];
          if (errors.length > 0) {
            await trx
              .insertInto('watchlist_import_errors')
              .values(errors.map((e) => ({ import_id: start.id, row: e.line, message: e.message })))
              .onConflict((oc) => oc.doNothing())
              .execute();
          }
          await trx
            .updateTable('watchlist_imports')
            .set({
              processed_rows: lastLine,
              imported_rows: sql`imported_rows + ${results.length - (errors.length - bad.length)}`,
              failed_rows: sql`failed_rows + ${errors.length}`,
              status: done ? 'done' : 'running',
              receiving_until: done ? null : sql`now() + ${sql.lit(`${LEASE_SECONDS} seconds`)}::interval`,
              receiving_by: done ? null : receiver,
              updated_at: sql`now()`,
            })
            .where('id', '=', start.id)
            // Still this request's: a reader whose lease lapsed (stalled for minutes) commits nothing more.
            .where('receiving_by', '=', receiver)
            .executeTakeFirst()
            .then((result) => {
              if (result.numUpdatedRows === 0n) {
                throw takenOver();
              }
            });
        });
        processed = lastLine;
      };

      const refuseFile = (rule: string) => {
        file.unpipe(guard);
        guard.unpipe(parser);
        // The rest of the upload is let through unread, so the answer gets out.
        file.resume();
        return AppError.validation([{ field: 'file', message: `${rule}; put that line first and send the file again` }]);
      };
      try {
        type Row = { line: number; record: { label?: string; value?: string; ref?: string } };
        const take = ({ line, record }: Row) => {
          // A line the guard replaced is one field, in whichever column comes first.
          const refused = refusedBecause(record.label) ?? refusedBecause(record.value) ?? refusedBecause(record.ref);
          if (refused) skipped.push({ line, message: refused });
          else if (!record.label || !record.value) skipped.push({ line, message: 'needs a label and a value' });
          else batch.push({ line, label: record.label, value: record.value.slice(0, 320), ref: record.ref?.slice(0, 100) });
        };
        // The latest row is held back until the next one arrives (or the file ends whole): if the
        // upload breaks off, the last row read may be cut short, and it is never committed.
        let held: Row | undefined;
        for await (const { record, info } of parser as AsyncIterable<{ record: Row['record']; info: { lines: number } }>) {
          if (!header) throw refuseFile(HEADER_RULE);
          // A resumed file continues after the lines already read. Skipping them commits nothing, so
          // the lease is renewed on the way: a long skip is no stall.
          if (info.lines <= processed) {
            if (info.lines % SKIP_RENEW_LINES === 0) await renewLease(start.id, receiver);
            continue;
          }
          if (held) {
            take(held);
            if (batch.length + skipped.length >= BATCH) await flush(held.line);
          }
          held = { line: info.lines, record };
          if (info.lines - 1 > MAX_IMPORT_ROWS) {
            held = undefined;
            skipped.push({
              line: info.lines,
              message: `is past the ${MAX_IMPORT_ROWS.toLocaleString('en')}-row limit; the rest was not read`,
            });
            file.unpipe(guard);
            guard.unpipe(parser);
            file.resume();
            break;
          }
        }
        if (!broken) {
          if (!header) throw refuseFile(headerRead ? HEADER_RULE : `The file is empty. ${HEADER_RULE}`);
          // A second file would otherwise be dropped without a word while this one is taken for the whole upload.
          await noOtherFile?.().catch((err: unknown) => {
            throw err instanceof AppError
              ? AppError.validation([
                  {
                    field: 'file',
                    message: `send exactly one file, in the field "file"; the lines read so far (${processed}) are kept: send that one file again to this import to go on`,
                  },
                ])
              : err;
          });
          if (held) take(held);
          done = true;
          await flush(Math.max(processed, parser.info.lines - (endsWithNewline ? 1 : 0)));
        }
      } catch (err) {
        broken = true;
        throw err;
      } finally {
        if (broken) {
          // What was committed stays; sending the file again resumes after it.
          await db
            .updateTable('watchlist_imports')
            .set({ status: 'interrupted', receiving_by: null, receiving_until: null })
            .where('id', '=', start.id)
            .where('receiving_by', '=', receiver)
            .execute();
        }
      }
      if (broken) {
        throw AppError.validation([
          { field: 'file', message: `the upload broke off after line ${processed}; send the file again to resume` },
        ]);
      }
      return toView(await own(companyId, id));
    },
  };
}

export type WatchlistImports = ReturnType<typeof createWatchlistImports>;

/**
 * A line's error as the file's reader needs it: "label must be one of: ..." for a bad label, a
 * value's own message ("BVN must be 11 digits") as it is, and an earlier duplicate by its line
 * (the batch's `items/N` means nothing to someone reading the file).
 */
function lineMessage(error: { field: string; message: string }, items: ReadonlyArray<{ line: number }>): string {
  if (error.field.endsWith('/label')) return `label ${error.message}`;
  return error.message.replace(/items\/(\d+)/, (whole, n: string) => {
    const line = items[Number(n)]?.line;
    return line === undefined ? whole : `line ${line}`;
  });
}
