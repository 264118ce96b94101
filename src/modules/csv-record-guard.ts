import { Transform, type TransformCallback } from 'node:stream';

/** What a record the guard refused is replaced by: a line of one field csv-parse reads as any other. */
export const LINE_TOO_LONG = '\u0000line too long';
export const QUOTE_NEVER_CLOSED = '\u0000quote never closed';
export const QUOTE_OUT_OF_PLACE = '\u0000quote out of place';

/** The longest record a customer file may hold, in bytes, its line ending aside. */
export const MAX_RECORD_BYTES = 4096;

/** Why a line the guard replaced was refused, from the one field csv-parse read from it; else undefined. */
export function refusedBecause(field: string | undefined): string | undefined {
  if (field === LINE_TOO_LONG) return `is longer than ${MAX_RECORD_BYTES.toLocaleString('en')} bytes`;
  if (field === QUOTE_NEVER_CLOSED) return 'is not valid CSV (a quote that is never closed)';
  if (field === QUOTE_OUT_OF_PLACE) return 'is not valid CSV (a quote closes a value before the end of its field)';
  return undefined;
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
/** What csv-parse's `trim` drops around a field: space, tab, vertical tab, form feed. */
const TRIMMED = new Set([0x20, 0x09, 0x0b, 0x0c]);

type QuoteState = 'open' | 'closed' | 'stray';

/**
 * Keeps every record of a CSV stream within `maxBytes` and its quotes where CSV allows them,
 * before csv-parse reads it, a line for a line: a bad record is one rejected line and the rest of
 * the file is still read.
 *
 * Why: with `skip_records_with_error`, csv-parse's errors for a record past `max_record_size` or a
 * quote closed before the end of its field return from the parse of the whole piece it is reading,
 * so the rest of that piece is dropped without a word, and every later piece meets the same record
 * (csv-parse 6.2.1): one bad line lost the rest of the file, and the job said it was done.
 *
 * - A line over `maxBytes` (its line ending aside) becomes `LINE_TOO_LONG`; its bytes are dropped
 *   as they come.
 * - A quote that closes a value before the end of its field (`"0803"x`) makes its line
 *   `QUOTE_OUT_OF_PLACE`.
 * - A quoted value may go on over several lines (CSV allows it). If its record passes `maxBytes`,
 *   the file ends first, or the quote that closes it is out of place, the quote is taken as never
 *   closed: the record's first line becomes `QUOTE_NEVER_CLOSED` and the lines after it are read
 *   again as records of their own, each on its own line only (so no line is read more than twice).
 * - A file whose lines end in a carriage return alone (old Mac spreadsheets) is read with each one
 *   turned into a line feed.
 *
 * Every line in is a line out, with its own line ending, so csv-parse numbers lines as in the
 * file. Lines without a quote (nearly all) are passed on as they are; a piece goes out as one buffer.
 */
export class RecordGuard extends Transform {
  readonly #maxBytes: number;
  /** Whether lines end in a lone CR; undefined until the first line ending is seen. */
  #crLines: boolean | undefined;
  /** The start of a line whose newline has not come yet. */
  #partial: Buffer | undefined;
  /** The current line passed `maxBytes`: the rest of it is dropped until its newline. */
  #dropping = false;
  /** The last byte dropped, to tell a CRLF line from an LF one. */
  #lastDropped = 0;
  /** The lines of a record whose quoted value is still open, and their bytes. */
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** Whether the file's first bytes were looked at for a byte-order mark. */
  #bomChecked = false;

  constructor(maxBytes: number) {
    super();
    this.#maxBytes = maxBytes;
  }

  override _transform(input: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    // A byte-order mark goes here, not in csv-parse: left in, a quote opening the first field
    // would be mid-field to the guard and opening to csv-parse, which then read the whole file
    // as one quoted value.
    let chunk = input;
    if (!this.#bomChecked && chunk.length > 0) {
      this.#bomChecked = true;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    this.#crLines ??= endsLinesWithCr(chunk);
    const data = this.#crLines ? crToNewline(chunk) : chunk;
    const out: Buffer[] = [];
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(NEWLINE, start);
      const end = newline === -1 ? data.length : newline + 1;
      if (this.#dropping) {
        if (newline === -1) this.#lastDropped = data[end - 1] ?? this.#lastDropped;
        else {
          const crlf = newline > start ? data[newline - 1] === CR : this.#lastDropped === CR;
          this.#dropping = false;
          this.#line(marker(LINE_TOO_LONG, crlf), out, true);
        }
      } else {
        const piece = data.subarray(start, end);
        const line = this.#partial ? Buffer.concat([this.#partial, piece]) : piece;
        this.#partial = undefined;
        if (newline !== -1) this.#line(line, out, true);
        // Not yet at its end: a CR last may be the start of its CRLF.
        else if (line.length - (line[line.length - 1] === CR ? 1 : 0) > this.#maxBytes) {
          this.#dropping = true;
          this.#lastDropped = line[line.length - 1] ?? 0;
        }
        // Copied: the piece may be a view of a buffer its producer reuses.
        else this.#partial = Buffer.from(line);
      }
      start = end;
    }
    if (out.length === 0) done();
    else done(null, out.length === 1 ? out[0] : Buffer.concat(out));
  }

  override _flush(done: TransformCallback): void {
    const out: Buffer[] = [];
    if (this.#dropping) this.#line(marker(LINE_TOO_LONG, false), out, true);
    else if (this.#partial) this.#line(this.#partial, out, true);
    this.#partial = undefined;
    this.#dropping = false;
    if (this.#held.length > 0) this.#reject(out);
    if (out.length === 0) done();
    else done(null, Buffer.concat(out));
  }

  /**
   * One whole line (its newline included, but for a file's last line without one). `mayHold`:
   * whether an open quote may carry the record on to the next lines; false for a line read again
   * after a rejected record, which is then refused at once.
   */
  #line(line: Buffer, out: Buffer[], mayHold: boolean): void {
    const crlf = endsWithCrlf(line);
    if (isMarker(line)) {
      if (this.#held.length > 0) this.#reject(out);
      out.push(line);
      return;
    }
    if (this.#held.length === 0) {
      if (contentLength(line) > this.#maxBytes) return void out.push(marker(LINE_TOO_LONG, crlf));
      const state = quoteAtEnd(line, false);
      if (state === 'closed') out.push(line);
      else if (state === 'stray') out.push(marker(QUOTE_OUT_OF_PLACE, crlf));
      else if (mayHold) this.#hold(line);
      else out.push(marker(QUOTE_NEVER_CLOSED, crlf));
      return;
    }
    if (this.#heldBytes + line.length > this.#maxBytes) {
      this.#reject(out);
      this.#line(line, out, false);
      return;
    }
    this.#hold(line);
    const state = quoteAtEnd(line, true);
    if (state === 'closed') {
      out.push(...this.#held);
      this.#held = [];
      this.#heldBytes = 0;
    } else if (state === 'stray') {
      this.#reject(out);
    }
  }

  #hold(line: Buffer): void {
    this.#held.push(Buffer.from(line));
    this.#heldBytes += line.length;
  }

  /** The held record's quote never closes: its first line is refused, the others read again on their own. */
  #reject(out: Buffer[]): void {
    const [first, ...rest] = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    out.push(marker(QUOTE_NEVER_CLOSED, first !== undefined && endsWithCrlf(first)));
    for (const line of rest) this.#line(line, out, false);
  }
}

const MARKERS = new Map<string, Buffer>();
function marker(text: string, crlf: boolean): Buffer {
  const key = `${text}${crlf ? '\r\n' : '\n'}`;
  let line = MARKERS.get(key);
  if (!line) {
    line = Buffer.from(key);
    MARKERS.set(key, line);
  }
  return line;
}
const isMarker = (line: Buffer) => line[0] === 0 && MARKERS.has(line.toString());

/** A copy of a piece of a file whose lines end in CR alone, with line feeds instead. */
function crToNewline(chunk: Buffer): Buffer {
  const copy = Buffer.from(chunk);
  for (let at = copy.indexOf(CR); at !== -1; at = copy.indexOf(CR, at + 1)) copy[at] = NEWLINE;
  return copy;
}

const endsWithCrlf = (line: Buffer) => line.length >= 2 && line[line.length - 1] === NEWLINE && line[line.length - 2] === CR;

/** A line's bytes without its line ending. */
function contentLength(line: Buffer): number {
  if (line[line.length - 1] !== NEWLINE) return line.length;
  return endsWithCrlf(line) ? line.length - 2 : line.length - 1;
}

/** Whether the first line ending of a file's first piece is a carriage return alone. */
function endsLinesWithCr(chunk: Buffer): boolean | undefined {
  const cr = chunk.indexOf(CR);
  const lf = chunk.indexOf(NEWLINE);
  if (cr === -1 && lf === -1) return undefined;
  if (cr === -1 || (lf !== -1 && lf < cr)) return false;
  // A CR at the very end of the piece: its LF may be the next piece's first byte.
  if (cr === chunk.length - 1) return undefined;
  return chunk[cr + 1] !== NEWLINE;
}

/**
 * Whether a quoted value is still open at the end of the line, read as csv-parse reads it: a
 * quote opens a value only at a field's start (after what `trim` drops), `""` inside one is a
 * quote, and a quote anywhere else is csv-parse's to refuse, not the start of a value. `stray`: a
 * quote closes a value and something other than the end of its field follows (`"0803"x`), which
 * csv-parse cannot skip without losing what comes after. `openAtStart`: the line goes on a value
 * a line before it opened.
 */
function quoteAtEnd(line: Buffer, openAtStart: boolean): QuoteState {
  if (!openAtStart && line.indexOf(QUOTE) === -1) return 'closed';
  let open = openAtStart;
  let fieldStart = !openAtStart;
  for (let i = 0; i < line.length; i++) {
    const byte = line[i] as number;
    if (open) {
      if (byte !== QUOTE) continue;
      if (line[i + 1] === QUOTE) {
        i++;
        continue;
      }
      open = false;
      fieldStart = false;
      let next = i + 1;
      while (TRIMMED.has(line[next] as number)) next++;
      const after = line[next];
      if (after !== undefined && after !== COMMA && after !== CR && after !== NEWLINE) return 'stray';
      i = next - 1;
    } else if (byte === COMMA) fieldStart = true;
    else if (byte === QUOTE && fieldStart) open = true;
    else if (!TRIMMED.has(byte) && byte !== CR && byte !== NEWLINE) fieldStart = false;
  }
  return open ? 'open' : 'closed';
}
