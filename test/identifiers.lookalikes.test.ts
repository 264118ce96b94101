import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeIdentifier, shippedBankDirectory } from '../src/identifiers/normalize.js';
import { reindexLookalikeNames } from '../src/identifiers/reindex-names.js';
import { createCompany } from './helpers/principals.js';
import { createReport, search } from './helpers/reports.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const banks = shippedBankDirectory();
const indexOf = (label: 'account_name' | 'social_handle', raw: string) => {
  const result = normalizeIdentifier(label, raw, { banks, purpose: 'search' });
  return result.ok ? result.indexValue : `refused: ${result.message}`;
};

/** Latin letters and the letters of other scripts drawn to look like them (Unicode confusables). */
const LOOKALIKES: Record<string, string[]> = {
  a: ['а', 'ɑ', 'α'],
  c: ['с', 'ϲ'],
  e: ['е'],
  i: ['і', 'ı'],
  j: ['ј'],
  o: ['о', 'ο', 'օ'],
  p: ['р', 'ρ'],
  s: ['ѕ'],
  x: ['х'],
  y: ['у'],
  h: ['һ'],
  d: ['ԁ'],
};
const INVISIBLE = ['\u034f', '\ufe0f', '\u200b', '\u200d', '\u2060', '\u00ad', '\u180e'];

const latinName = fc.array(fc.stringMatching(/^[a-z]{2,10}$/), { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));

/** The name with some letters swapped for look-alikes and invisible marks sprinkled in. */
const disguised = (name: string) =>
  fc
    .tuple(
      fc.array(fc.nat(), { minLength: name.length, maxLength: name.length }),
      fc.array(fc.constantFrom(...INVISIBLE, ''), { minLength: name.length, maxLength: name.length }),
    )
    .map(([picks, marks]) =>
      [...name]
        .map((letter, i) => {
          const options = LOOKALIKES[letter];
          const pick = picks[i] as number;
          const swapped = options && pick % 2 === 0 ? (options[pick % options.length] as string) : letter;
          return `${swapped}${letter === ' ' ? '' : marks[i]}`;
        })
        .join(''),
    );

describe('look-alike names', () => {
  it('index an account name with look-alike letters and invisible marks as its plain spelling', () => {
    fc.assert(
      fc.property(
        latinName.chain((name) => fc.tuple(fc.constant(name), disguised(name))),
        ([name, lookalike]) => {
          expect(indexOf('account_name', lookalike)).toBe(indexOf('account_name', name));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keep all-ASCII names apart as before: m is not rn, l is not 1', () => {
    expect(indexOf('account_name', 'tom doe')).not.toBe(indexOf('account_name', 'torn doe'));
    expect(indexOf('account_name', 'ali 1')).not.toBe(indexOf('account_name', 'ali l'));
    expect(indexOf('account_name', 'Adébáyọ̀ Ọlámídé')).not.toBe(indexOf('account_name', 'Adebayo Olamide'));
  });

  it('drop invisible marks from a handle, and refuse a handle with look-alike letters', () => {
    expect(indexOf('social_handle', '@john\ufe0fdoe\u034f')).toBe('johndoe');
    expect(indexOf('social_handle', '@jоhndoe')).toMatch(/^refused/);
  });
});

describe('look-alike names over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('a name filed with Cyrillic letters and a variation selector is found by its plain spelling, and the other way round', async () => {
    const company = await createCompany(t);
    const plain = 'Chinedu Okonkwo';
    const disguisedName = 'Сhinеdu\ufe0f Оkоnkwо\u034f';
    await createReport(t, company.apiKey, { identifiers: [{ label: 'account_name', value: disguisedName }] });
    expect((await search(t, company.apiKey, 'account_name', plain)).json().data.summary.totalReports).toBe(1);
    await createReport(t, company.apiKey, { identifiers: [{ label: 'account_name', value: 'Amaka Eze' }] });
    expect((await search(t, company.apiKey, 'account_name', 'Аmаkа Еzе')).json().data.summary.totalReports).toBe(1);
  });

  it('re-indexes names stored under the old rules so they are found too', async () => {
    const company = await createCompany(t);
    const report = await createReport(t, company.apiKey, { identifiers: [{ label: 'account_name', value: 'Ifеоma Nwоsu' }] });
    // As an earlier version stored it: the index of the letters as written, version 1.
    const oldIndex = t.app.crypto.blindIndex('account_name', 'ifеоma nwоsu');
    await sql`update report_identifiers set blind_index = ${oldIndex}, index_version = 1 where report_id = ${report.id}`.execute(
      t.database.db,
    );
    expect((await search(t, company.apiKey, 'account_name', 'Ifeoma Nwosu')).json().data.summary.totalReports).toBe(0);

    expect(await reindexLookalikeNames(t.database.db, t.app.crypto)).toBe(1);
    expect((await search(t, company.apiKey, 'account_name', 'Ifeoma Nwosu')).json().data.summary.totalReports).toBe(1);
    expect(await reindexLookalikeNames(t.database.db, t.app.crypto)).toBe(0);
  });
});
