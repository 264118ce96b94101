import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { indexEntriesToStore } from '../src/crypto/blind-index.js';
import { loadCrypto } from '../src/crypto/load-crypto.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { type IdentifierLabel, normalizeIdentifier, shippedBankDirectory } from '../src/identifiers/normalize.js';
import { nubanCheckDigit } from '../src/identifiers/nuban.js';
import { engine } from './helpers/test-database.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every regular file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');
const letters = (n: number) => Array.from(randomBytes(n), (b) => String.fromCharCode(97 + (b % 26))).join('');

/** Identifiers made up for this run, so a match in the files cannot be a coincidence. */
function identifiers(): [IdentifierLabel, string][] {
  const serial = digits(9);
  return [
    ['account', `${serial}${nubanCheckDigit('044', serial)}_access-bank`],
    ['bvn', `22${digits(9)}`],
    ['nin', `7${digits(10)}`],
    ['phone', `0803${digits(7)}`],
    ['email', `${letters(10)}@example.com`],
    ['account_name', `${letters(8)} ${letters(9)}`],
    ['social_handle', `@${letters(12)}`],
    ['international_passport', `A${digits(8)}`],
    ['drivers_license', `${letters(3).toUpperCase()}${digits(5)}AA${digits(2)}`],
  ];
}

describe('identifiers at rest', () => {
  // On the server engine this makes a new embedded database (initdb): slow on a loaded machine.
  it('leaves no clear value in any file of the embedded data directory', { timeout: 120_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redflag-at-rest-'));
    dirs.push(dataDir);
    // On the server engine no migrated template was prepared: this test makes its own embedded database.
    if (engine === 'embedded') fs.cpSync(inject('embeddedTemplateDir'), dataDir, { recursive: true });
    const database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1 });
    await migrateToLatest(database.db);
    const crypto = await loadCrypto({ db: database.db, config: { masterKey: undefined, dataDir }, engine: 'embedded' });

    await sql`create table probe_identifiers (id uuid primary key, company_id uuid not null, report_id uuid not null,
      label text not null, value_sealed text not null)`.execute(database.db);
    await sql`create table probe_index (identifier_id uuid not null, label text not null, digest bytea not null, version int not null)`.execute(
      database.db,
    );
    await sql`create table probe_control (note text not null)`.execute(database.db);

    const banks = shippedBankDirectory();
    const secrets: string[] = [];
    const companyId = randomUUID();
    for (let copy = 0; copy < 3; copy++) {
      const reportId = randomUUID();
      for (const [label, raw] of identifiers()) {
        const normalized = normalizeIdentifier(label, raw, { banks, purpose: 'store' });
        if (!normalized.ok) throw new Error(`${label}: ${normalized.message}`);
        secrets.push(raw, normalized.value, normalized.indexValue, ...(normalized.nuban ? [normalized.nuban] : []));
        const id = randomUUID();
        const token = crypto.keyring.seal(normalized.value, { companyId, recordId: reportId, label });
        await sql`insert into probe_identifiers values (${id}, ${companyId}, ${reportId}, ${label}, ${token})`.execute(
          database.db,
        );
        for (const entry of indexEntriesToStore(crypto.blindIndex, label, normalized)) {
          await sql`insert into probe_index values (${id}, ${entry.label}, ${entry.digest}, ${entry.version})`.execute(
            database.db,
          );
        }
      }
    }
    // A value stored in clear on purpose: the scan below must find it, or it proves nothing.
    const canary = `canary-${letters(16)}`;
    await sql`insert into probe_control values (${canary})`.execute(database.db);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from probe_index`.execute(database.db);
    expect(rows[0]?.n).toBe(30);
    await database.close();

    const files = filesUnder(dataDir);
    expect(files.length).toBeGreaterThan(100);
    const found = new Set<string>();
    let canarySeen = false;
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      if (bytes.includes(canary)) canarySeen = true;
      for (const secret of secrets) if (bytes.includes(secret)) found.add(`${secret} in ${path.relative(dataDir, file)}`);
    }
    expect(canarySeen).toBe(true);
    expect([...found]).toEqual([]);
  });
});
