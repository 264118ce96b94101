import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
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
