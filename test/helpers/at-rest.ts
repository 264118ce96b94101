import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import type { TestApp } from './test-app.js';
import { serverUrl } from './test-database.js';

export interface StoredPiece {
  /** A file of the data directory, or a table of the server schema. */
  where: string;
  content: Buffer;
}

/**
 * Everything the database holds once the app is closed (`close({ keepFiles: true })`): every file
 * of the embedded data directory, or every row of every table of the server schema as text (bytea
 * appears there as hex, so `containsClear` looks for the hex form too). The data directory is removed.
 */
export async function storedPieces(t: TestApp): Promise<StoredPiece[]> {
  try {
    if (!t.database.schema || !serverUrl) return filesUnder(t.database.dataDir);
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(
        `select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'`,
        [t.database.schema],
      );
      const pieces: StoredPiece[] = [];
      for (const { table_name } of rows) {
        const table = `${client.escapeIdentifier(t.database.schema)}.${client.escapeIdentifier(table_name)}`;
        const dump = await client.query<{ text: string | null }>(`select string_agg(t::text, E'\\n') as text from ${table} t`);
        pieces.push({ where: table_name, content: Buffer.from(dump.rows[0]?.text ?? '') });
      }
      return pieces;
    } finally {
      await client.end();
    }
  } finally {
    fs.rmSync(t.database.dataDir, { recursive: true, force: true });
  }
}

function filesUnder(dir: string): StoredPiece[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .map((file) => ({ where: path.relative(dir, file), content: fs.readFileSync(file) }));
}

/** Whether a piece holds the text in clear (or, in a server dump, as the hex of a bytea). */
export function containsClear(piece: StoredPiece, text: string): boolean {
  return piece.content.includes(text) || piece.content.includes(Buffer.from(text).toString('hex'));
}

/**
 * The app closed (`close({ keepFiles: true })` first), no needle is in its log or anywhere it stored,
 * and `seen`, a text stored in clear on purpose (a member's name), is found: the scan reads text.
 */
export async function expectNoneStored(t: TestApp, needles: readonly string[], seen: string): Promise<void> {
  const logText = t.logLines.join('\n');
  for (const needle of needles) expect(logText, `log contains ${needle}`).not.toContain(needle);
  const stored = await storedPieces(t);
  for (const needle of needles) {
    for (const piece of stored) expect(containsClear(piece, needle), `${piece.where} contains ${needle}`).toBe(false);
  }
  expect(stored.some((piece) => containsClear(piece, seen))).toBe(true);
}

/** Key order does not matter: the form a service would most likely hash a JSON body in. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export interface UnkeyedDigest {
  of: string;
  /** The digest as raw bytes, hex, base64 and base64url: each form it could be stored in. */
  forms: Buffer[];
}

/**
 * The unkeyed SHA-256 of every text an attacker with a copy of the database could guess and hash:
 * each clear value (as sent and as normalised, also lower-cased) and each request body (as sent and
 * with sorted keys). Such a digest at rest turns the encryption into a dictionary lookup.
 */
export function unkeyedDigests(values: string[], bodies: unknown[] = []): UnkeyedDigest[] {
  const texts = new Set<string>();
  for (const value of values) for (const form of [value, value.toLowerCase(), value.trim()]) texts.add(form);
  for (const body of bodies) {
    texts.add(JSON.stringify(body));
    texts.add(sortedJson(body));
  }
  return [...texts].map((text) => {
    const digest = createHash('sha256').update(text, 'utf8').digest();
    const encoded = [digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')];
    return { of: text, forms: [digest, ...encoded.map((form) => Buffer.from(form))] };
  });
}

/** Whether a piece holds the digest in any of its forms. */
export function containsDigest(piece: StoredPiece, digest: UnkeyedDigest): boolean {
  return digest.forms.some((form) => piece.content.includes(form));
}
