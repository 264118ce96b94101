import { Transform, type TransformCallback } from 'node:stream';

/** What a record the guard refused is replaced by: a line of one field csv-parse reads as any other. */
export const LINE_TOO_LONG = '\u0000line too long';
export const QUOTE_NEVER_CLOSED = '\u0000quote never closed';

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const TOO_LONG_LINE = Buffer.from(`${LINE_TOO_LONG}\n`);
const UNCLOSED_LINE = Buffer.from(`${QUOTE_NEVER_CLOSED}\n`);

/**
 * Keeps every record of a CSV stream within `maxBytes` before csv-parse reads it, a line for a
 * line, so a bad record is one rejected line and the rest of the file is still read.
 *
 * Why not csv-parse's `max_record_size`: with `skip_records_with_error` its error returns from the
 * parse of the whole piece it was reading, so the rest of that piece is dropped without a word,
 * and every later piece meets the same over-long record: one line too long lost the rest of the
 * file (csv-parse 6.2.1), and the job said it was done.
 *
 * - A line over `maxBytes` becomes the line `LINE_TOO_LONG` (its bytes are dropped as they come).
 * - A quoted value may go on over several lines (CSV allows it). If its record passes `maxBytes`,
 *   the file ends first, or the quote that closes it is not the end of a field, the quote is taken
 *   as never closed: the record's first line becomes `QUOTE_NEVER_CLOSED` and the lines after it
 *   are read again as records of their own.
 *
 * Every line in is a line out, so csv-parse numbers lines as in the file. Lines without a quote
 * (nearly all) are passed on as they are; a piece's lines go out as one buffer.
 */
export class RecordGuard extends Transform {
  readonly #maxBytes: number;
  /** The start of a line whose newline has not come yet. */
  #partial: Buffer | undefined;
  /** The current line passed `maxBytes`: the rest of it is dropped until its newline. */
  #partialTooLong = false;
  /** The lines of a record whose quoted value is still open, and their bytes. */
  #held: Buffer[] = [];
  #heldBytes = 0;

  constructor(maxBytes: number) {
    super();
    this.#maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const out: Buffer[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      if (this.#partialTooLong) {
        // Dropping an over-long line until its end.
        if (newline !== -1) {
          this.#partialTooLong = false;
          this.#line(TOO_LONG_LINE, true, out);
        }
      } else {
        const piece = chunk.subarray(start, end);
        const line = this.#partial ? Buffer.concat([this.#partial, piece]) : piece;
        if (newline !== -1) {
          this.#partial = undefined;
          this.#line(line, line.length > this.#maxBytes, out);
        } else if (line.length > this.#maxBytes) {
          this.#partial = undefined;
          this.#partialTooLong = true;
        } else {
          // Copied: the piece may be a view of a buffer its producer reuses.
          this.#partial = Buffer.from(line);
        }
      }
      start = end;
    }
    if (out.length === 0) done();
    else done(null, out.length === 1 ? out[0] : Buffer.concat(out));
  }

  override _flush(done: TransformCallback): void {
    const out: Buffer[] = [];
    if (this.#partialTooLong) this.#line(TOO_LONG_LINE, true, out);
    else if (this.#partial) this.#line(this.#partial, false, out);
    this.#partial = undefined;
    this.#partialTooLong = false;
    while (this.#held.length > 0) this.#reject(out);
    if (out.length === 0) done();
    else done(null, Buffer.concat(out));
  }

  /** One whole line (its newline included, but for a file's last line without one). */
  #line(line: Buffer, tooLong: boolean, out: Buffer[]): void {
    if (this.#held.length === 0) {
      if (tooLong) out.push(line === TOO_LONG_LINE ? line : TOO_LONG_LINE);
      else if (quoteAtEnd(line, false) !== 'open') out.push(line);
      else this.#hold(line);
      return;
    }
    if (tooLong || this.#heldBytes + line.length > this.#maxBytes) {
      this.#reject(out);
      this.#line(line, tooLong, out);
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

  /** The held record's quote never closes: its first line is refused, the others read again. */
  #reject(out: Buffer[]): void {
    const [, ...rest] = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    out.push(UNCLOSED_LINE);
    for (const line of rest) this.#line(line, false, out);
  }
}

/**
 * Whether a quoted value is still open at the end of the line, read as csv-parse reads it: a
 * quote opens a value only at a field's start (after spaces, which `trim` drops), `""` inside one
 * is a quote, and a quote anywhere else is csv-parse's to refuse, not the start of a value.
 * `stray`: the line goes on a value open at its start (`openAtStart`), and the quote that closes
 * it is not followed by the end of its field. The value's first quote was then a stray one, not
 * a value over several lines: `"ADA` with `phone,"0803...` on a later line.
 */
function quoteAtEnd(line: Buffer, openAtStart: boolean): 'open' | 'closed' | 'stray' {
  if (!openAtStart && line.indexOf(QUOTE) === -1) return 'closed';
  let open = openAtStart;
  let closingFirst = openAtStart;
  let fieldStart = !openAtStart;
  for (let i = 0; i < line.length; i++) {
    const byte = line[i];
    if (open) {
      if (byte !== QUOTE) continue;
      if (line[i + 1] === QUOTE) {
        i++;
        continue;
      }
      open = false;
      if (closingFirst) {
        closingFirst = false;
        let next = i + 1;
        while (line[next] === SPACE || line[next] === TAB) next++;
        const after = line[next];
        if (after !== undefined && after !== COMMA && after !== CR && after !== NEWLINE) return 'stray';
      }
    } else if (byte === COMMA) fieldStart = true;
    else if (byte === QUOTE && fieldStart) open = true;
    else if (byte !== SPACE && byte !== TAB && byte !== CR && byte !== NEWLINE) fieldStart = false;
  }
  return open ? 'open' : 'closed';
}
