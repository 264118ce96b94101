import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BrokenFileError, type FileChunk, readChunks } from '../src/modules/screenings/screening-file.js';

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
      'phone,08"03,d"e"f', // 9: not valid CSV (csv-parse refuses it once a quote: one row)
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
      { line: 9, message: expect.stringContaining('a quote inside a value that does not start with one') },
    ]);
  });

  it('refuses a line too long or a quote never closed as one row, and reads every row after it', async () => {
    const file = [
      'label,value,ref',
      'phone,08031234567,before', // 2
      `phone,${'9'.repeat(200_000)},x`, // 3: too long, arriving over many pieces
      'phone,08031234568,after', // 4
      'email,"never@closed.example,y', // 5: the quote never closes...
      'phone,08031234569,a', // 6: ...so these are read as rows of their own
      'phone,"0803123""4570",b', // 7: a quote inside a quoted value
      `account_name,"${'A'.repeat(5000)}`, // 8: too long and unclosed
      'nuban,0123456789,c', // 9
      'phone,"08031234571', // 10: unclosed at the end of the file
    ].join('\n');
    for (const pieces of [7, 65_536]) {
      const { rows, rejected } = await read(file, pieces);
      expect(rows.map(([line, , value]) => [line, value])).toEqual([
        [2, '08031234567'],
        [4, '08031234568'],
        [6, '08031234569'],
        [7, '0803123"4570'],
        [9, '0123456789'],
      ]);
      expect(rejected.sort((a, b) => a.line - b.line)).toEqual([
        { line: 3, message: 'is longer than 4,096 bytes' },
        { line: 5, message: 'is not valid CSV (a quote that is never closed)' },
        { line: 8, message: 'is longer than 4,096 bytes' },
        { line: 10, message: 'is not valid CSV (a quote that is never closed)' },
      ]);
    }
  });

  it('refuses a quote that closes a value before the end of its field as one row, and reads the rest', async () => {
    const good = Array.from({ length: 100 }, (_, i) => `phone,0803${String(i).padStart(7, '0')},r${i}`);
    const file = ['label,value,ref', 'phone,"0803"x,a', 'phone,"0803" x,b', ...good, 'email,"a@b.example"c', ''].join('\n');
    for (const pieces of [7, 65_536]) {
      const { rows, rejected } = await read(file, pieces);
      expect(rows).toHaveLength(100);
      expect(rows.at(-1)).toEqual([103, 'phone', '08030000099', 'r99']);
      const outOfPlace = 'is not valid CSV (a quote closes a value before the end of its field)';
      expect(rejected).toEqual([
        { line: 2, message: outOfPlace },
        { line: 3, message: outOfPlace },
        { line: 104, message: outOfPlace },
      ]);
    }
  });

  it('keeps line numbers and the rows after a refused line in CRLF and CR-only files, whatever the columns’ order', async () => {
    for (const ending of ['\r\n', '\r']) {
      const file = [
        'value,label,ref',
        '08031234567,phone,a', // 2
        `${'9'.repeat(5000)},phone,x`, // 3
        '08031234568,phone,b', // 4
        '"never@closed.example,email,y', // 5
        '08031234569,phone,c', // 6
        `${'1'.repeat(4088)},phone,z`, // 7: 4,096 bytes, line ending aside: taken
        '',
      ].join(ending);
      const { rows, rejected } = await read(file, 11);
      expect(
        rows.map(([line, label, value]) => [line, label, value.slice(0, 12)]),
        JSON.stringify(ending),
      ).toEqual([
        [2, 'phone', '08031234567'],
        [4, 'phone', '08031234568'],
        [6, 'phone', '08031234569'],
        [7, 'phone', '111111111111'],
      ]);
      expect(rejected).toEqual([
        { line: 3, message: 'is longer than 4,096 bytes' },
        { line: 5, message: 'is not valid CSV (a quote that is never closed)' },
      ]);
    }
  });

  it('reads each line at most twice when quotes keep opening: every line is a row or a rejected row', async () => {
    const lines = ['label,value', 'a,"b'];
    for (let i = 0; i < 3000; i++) lines.push('x",y,"z');
    const { rows, rejected } = await read(lines.join('\n'), 65_536);
    expect(rows.length + rejected.length).toBeGreaterThan(2900);
    expect(new Set([...rows.map(([line]) => line), ...rejected.map(({ line }) => line)]).size).toBe(
      rows.length + rejected.length,
    );
  });

  it('reads the columns by the names of the header, in any order, and refuses a file without one', async () => {
    const { rows } = await read('\uFEFFRef, Value ,LABEL\nr1,08031234567,phone\n');
    expect(rows).toEqual([[2, 'phone', '08031234567', 'r1']]);
    expect((await read('label,value\nphone,08031234567\n')).rows).toEqual([[2, 'phone', '08031234567', '']]);
    for (const file of [
      'phone,08031234567,r1\nphone,08031234568,r2\n',
      'label,value,note\n',
      'label,label,value\n',
      '',
      '\n\n',
    ]) {
      await expect(read(file), JSON.stringify(file)).rejects.toThrow(BrokenFileError);
    }
    await expect(read('phone,08031234567,r1\n')).rejects.toThrow(/^(?!.*0803)The .*label, value/);
  });

  it('refuses a row holding a NUL character', async () => {
    const { rows, rejected } = await read('label,value,ref\nphone,08031234567,r\u00001\nphone,08031234568,ok\n');
    expect(rows).toEqual([[3, 'phone', '08031234568', 'ok']]);
    expect(rejected).toEqual([{ line: 2, message: 'holds a NUL character' }]);
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
