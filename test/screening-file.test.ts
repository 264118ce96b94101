import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type FileChunk, readChunks } from '../src/modules/screenings/screening-file.js';

async function read(text: string, pieces = 7): Promise<FileChunk> {
  // Fed in small pieces, as a socket delivers an upload: a record may straddle two of them.
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += pieces) parts.push(text.slice(i, i + pieces));
  const all: FileChunk = { rows: [], rejected: [] };
  for await (const chunk of readChunks(Readable.from(parts))) {
    all.rows.push(...chunk.rows);
    all.rejected.push(...chunk.rejected);
  }
  return all;
}

describe('reading a customer file', () => {
  it('numbers each row by the line of the file it ends on, past blank lines and values that span lines', async () => {
    const file = [
      'label,value,ref',
      'phone,08031234567,a', // 2
      '', // 3: blank, skipped
      'email,  x@example.com  ,b', // 4: trimmed
      'account_name,"ADA', // 5: a quoted value that goes on...
      'OBI",c', // 6: ...to here
      'phone,', // 7: no value
      'nuban,"0123456789,058"', // 8: no ref
      'phone,08"03,d', // 9: not valid CSV
      'bvn,22123456789,e,extra', // 10: a fourth field is ignored
      '',
    ].join('\n');
    const { rows, rejected } = await read(file);
    expect(rows).toEqual([
      [2, 'phone', '08031234567', 'a'],
      [4, 'email', 'x@example.com', 'b'],
      [6, 'account_name', 'ADA\nOBI', 'c'],
      [8, 'nuban', '0123456789,058', ''],
      [10, 'bvn', '22123456789', 'e'],
    ]);
    expect(rejected.sort((a, b) => a.line - b.line)).toEqual([
      { line: 7, message: 'needs a label and a value' },
      { line: 9, message: 'is not valid CSV (INVALID_OPENING_QUOTE)' },
    ]);
  });

  it('keeps counting lines across chunks of 2,000 rows', async () => {
    const lines = ['label,value,ref'];
    for (let i = 0; i < 4100; i++) lines.push(i === 3000 ? '' : `phone,0803${String(i).padStart(7, '0')},r${i}`);
    const { rows } = await read(lines.join('\n'), 4096);
    expect(rows).toHaveLength(4099);
    expect(rows.at(-1)).toEqual([4101, 'phone', '08030004099', 'r4099']);
    expect(rows[2999]?.[0]).toBe(3001);
    expect(rows[3000]?.[0]).toBe(3003);
  });
});
