import type { Readable } from 'node:stream';
import { Parser } from 'csv-parse';
import type { SealContext } from '../../crypto/keyring.js';
import { type Columns, HEADER_RULE, headerColumns } from '../csv-header.js';
import { MAX_RECORD_BYTES, RecordGuard, refusedBecause } from '../csv-record-guard.js';

/** A row of the customer file as a chunk keeps it: its line number, then label, value and ref. */
export type ChunkRow = [line: number, label: string, value: string, ref: string];

export const MAX_SCREENING_ROWS = 10_000_000;
/** Rows a chunk holds: sealed and stored together, later screened in one transaction. */
export const CHUNK_ROWS = 2_000;

/** Chunks and matched rows are sealed to the company and the job (and a chunk to its place in the file). */
export const chunkContext = (companyId: string, jobId: string, seq: number): SealContext => ({
  companyId,
  recordId: jobId,
  label: `screening.chunk.${seq}`,
});
export const rowContext = (companyId: string, jobId: string): SealContext => ({
  companyId,
  recordId: jobId,
  label: 'screening.row',
});

/** The file did not arrive whole: the upload broke off, or it was over the size limit. */
export class BrokenFileError extends Error {}

/** The largest file taken: ten million rows of a long e-mail address and reference fit. */
export const MAX_FILE_BYTES = 2 * 1024 ** 3;

export interface FileChunk {
  rows: ChunkRow[];
  /** Lines that are not rows at all (broken CSV, no value): rejected before screening. */
  rejected: Array<{ line: number; message: string }>;
}

const HEADER_MESSAGE = `${HEADER_RULE}; put that line first and start a new screening with the whole file`;

/**
 * Reads a customer file (a header naming `label`, `value` and optionally `ref`, then a row a line)
 * as chunks of `CHUNK_ROWS`, never holding more than one: the caller stores each before the next
 * is read (the upload waits). Throws when the header is not one, or when the stream breaks off (an
 * error, or a close without an end), so half a file is never taken for a whole one; a row past
 * `MAX_SCREENING_ROWS` is refused by its line. A bad line is a rejected row; the rest is read.
 */
export async function* readChunks(file: Readable): AsyncGenerator<FileChunk> {
  const guard = new RecordGuard(MAX_RECORD_BYTES);
  const parser = new NumberedParser({
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
    skip_records_with_error: true,
    // Never reached (the guard keeps records shorter): csv-parse's own limit would drop the rest of the file.
    max_record_size: MAX_RECORD_BYTES * 2,
  });
  let rejected: FileChunk['rejected'] = [];
  // csv-parse may refuse one line several times (a quote in mid-value, once per quote): it is one row.
  let lastSkipped: number | undefined;
  parser.on('skip', (err: { lines?: number; code?: string }) => {
    const line = err.lines ?? 0;
    if (line === lastSkipped) return;
    lastSkipped = line;
    // The code only: csv-parse's message quotes the value.
    rejected.push({ line, message: csvProblemInWords(err.code) });
  });
  let broken: BrokenFileError | undefined;
  const stopReading = () => {
    file.unpipe(guard);
    guard.unpipe(parser);
    if (!parser.writableEnded) parser.end();
  };
  const breakOff = (reason: string) => {
    broken ??= new BrokenFileError(`${reason}; start a new screening with the whole file`);
    stopReading();
  };
  file.on('error', () => breakOff('The upload broke off before the end of the file'));
  // @fastify/multipart's stream says `limit` when the file passes the route's size limit.
  file.on('limit', () => breakOff('The file is larger than the 2 GiB limit'));
  file.on('close', () => {
    if (!file.readableEnded) breakOff('The upload broke off before the end of the file');
  });
  if (file.destroyed) breakOff('The upload broke off before the end of the file');
  else file.pipe(guard).pipe(parser);

  let columns: Columns | undefined;
  let rows: ChunkRow[] = [];
  let count = 0;
  for await (const [line, fields] of tolerant(parser, rejected)) {
    // A line the guard replaced is one field, whatever the columns' order.
    const guarded = fields.length === 1 ? refusedBecause(fields[0]) : undefined;
    if (!columns) {
      columns = headerColumns(fields);
      if (columns) continue;
      // Read no further: the rest of the upload is let through unread, so the answer gets out.
      stopReading();
      file.resume();
      throw broken ?? new BrokenFileError(HEADER_MESSAGE);
    }
    if (++count > MAX_SCREENING_ROWS) {
      rejected.push({
        line,
        message: `is past the ${MAX_SCREENING_ROWS.toLocaleString('en')}-row limit; the rest was not read`,
      });
      stopReading();
      file.resume();
      break;
    }
    const label = fields[columns.label];
    const value = fields[columns.value];
    const ref = columns.ref === undefined ? '' : (fields[columns.ref] ?? '');
    if (guarded) rejected.push({ line, message: guarded });
    else if (!label || !value) rejected.push({ line, message: 'needs a label and a value' });
    else if (`${label}${value}${ref}`.includes('\u0000')) rejected.push({ line, message: 'holds a NUL character' });
    else rows.push([line, label.slice(0, 40), value.slice(0, 320), ref.slice(0, 200)]);
    if (rows.length + rejected.length >= CHUNK_ROWS) {
      yield { rows, rejected };
      rows = [];
      rejected = [];
    }
  }
  if (broken) throw broken;
  if (!columns) throw new BrokenFileError(`The file is empty. ${HEADER_MESSAGE}`);
  if (rows.length + rejected.length > 0) yield { rows, rejected };
}

/** A record and the line it ends on; its fields are label, value and ref, any of them missing. */
type Parsed = [line: number, fields: Array<string | undefined>];

/**
 * csv-parse's stream with each record pushed as `[line, fields]`. Its `info: true` numbers records
 * too, but builds a fresh info object per record (object spreads) and a record object around it:
 * reading the bench's 1,000,000-row file took 5.5–6.5 s of CPU that way against 2.2–2.6 s this way
 * (`bench/read-file.js`). `info.lines` is the parser's own live counter (documented, public), read
 * as the record is pushed, the moment `info: true` copies it; test/screening-file.test.ts pins the
 * numbers, so a csv-parse that pushed records later would fail it.
 */
class NumberedParser extends Parser {
  override push(record: unknown, encoding?: BufferEncoding): boolean {
    return super.push(record === null ? null : [this.info.lines, record], encoding);
  }
}

/**
 * The parser's records; an error it cannot skip past (a quote never closed, which swallows the
 * rest of the file) ends the file as one rejected line instead of failing the upload.
 */
async function* tolerant(parser: AsyncIterable<unknown>, rejected: FileChunk['rejected']): AsyncGenerator<Parsed> {
  try {
    for await (const parsed of parser) yield parsed as Parsed;
  } catch (err) {
    const csv = err as { code?: string; lines?: number };
    if (!csv.code?.startsWith('CSV_')) throw err;
    rejected.push({ line: csv.lines ?? 0, message: `${csvProblemInWords(csv.code)}; the rest of the file was not read` });
  }
}

/** A CSV field: quoted when it holds a comma, quote or line break; a leading formula sign defused. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  // A spreadsheet would run "=…", "@…", or "+…"/"-…" that is not a plain number (a phone is) as a
  // formula (CSV injection): a quote first makes it text.
  if (typeof value === 'string' && (/^[=@\t\r]/.test(text) || /^[+-](?![\d\s]+$)/.test(text))) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** csv-parse's codes for a line it skips, in words (its own message quotes the value: never shown). */
const CSV_PROBLEMS: Record<string, string> = {
  INVALID_OPENING_QUOTE:
    'a quote inside a value that does not start with one (quote the whole value, and double the quotes inside it)',
  INVALID_CLOSING_QUOTE: 'a quote that closes a value before the end of its field',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'more or fewer values than the header has',
  CSV_RECORD_INCONSISTENT_COLUMNS: 'more or fewer values than the header has',
  CSV_QUOTE_NOT_CLOSED: 'a quote that is never closed',
};
export function csvProblemInWords(code: string | undefined): string {
  return `is not valid CSV (${(code && CSV_PROBLEMS[code]) ?? 'a line that cannot be read'})`;
}
