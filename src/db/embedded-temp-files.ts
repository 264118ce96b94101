import fs from 'node:fs';
import path from 'node:path';

export interface RemovedTempFiles {
  files: number;
  bytes: number;
}

/** A temporary relation's file: `t<backend>_<relfilenode>`, then an optional fork and segment. */
const TEMP_RELATION_FILE = /^t\d+_\d+(_(fsm|vm|init))?(\.\d+)?$/;
const TEMP_FILE_PREFIX = 'pgsql_tmp';

/**
 * What PostgreSQL's postmaster does at every start (`RemovePgTempFiles`), and PGlite never does:
 * single-user mode has no postmaster. A sort, hash or index build that outgrows `work_mem` spills
 * to `base/pgsql_tmp`, and a temporary table keeps its pages in `t…` files; a clean end removes
 * both, a `kill -9` or a power cut leaves them, and nothing would ever remove them (a sort of
 * 3,000,000 rows killed half-way left 164 MB; decision 0111). Only safe with no backend running on these files: the caller
 * holds the data directory's lock and has not opened PGlite yet.
 */
export function removeCrashTempFiles(pgdata: string): RemovedTempFiles {
  const removed: RemovedTempFiles = { files: 0, bytes: 0 };
  for (const dir of tempFileDirectories(pgdata)) {
    for (const name of listing(dir)) {
      if (name.startsWith(TEMP_FILE_PREFIX)) removeEntry(path.join(dir, name), removed);
    }
  }
  for (const dir of databaseDirectories(pgdata)) {
    for (const name of listing(dir)) {
      if (TEMP_RELATION_FILE.test(name)) removeEntry(path.join(dir, name), removed);
    }
  }
  return removed;
}

/** `base/pgsql_tmp`, and each tablespace's own (Redflag makes none; PostgreSQL looks there too). */
function tempFileDirectories(pgdata: string): string[] {
  const tablespaces = path.join(pgdata, 'pg_tblspc');
  const inTablespaces = listing(tablespaces).flatMap((oid) =>
    listing(path.join(tablespaces, oid)).map((version) => path.join(tablespaces, oid, version, TEMP_FILE_PREFIX)),
  );
  return [path.join(pgdata, 'base', TEMP_FILE_PREFIX), ...inTablespaces];
}

function databaseDirectories(pgdata: string): string[] {
  const base = path.join(pgdata, 'base');
  return listing(base)
    .filter((name) => /^\d+$/.test(name))
    .map((name) => path.join(base, name));
}

/** A directory that is not there has nothing to remove. */
function listing(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

/** A shared file set is a directory of files (`pgsql_tmp<pid>.<n>.fileset`): counted file by file. */
function removeEntry(entry: string, removed: RemovedTempFiles): void {
  const stats = fs.lstatSync(entry);
  if (stats.isDirectory()) {
    for (const name of listing(entry)) removeEntry(path.join(entry, name), removed);
    fs.rmdirSync(entry);
    return;
  }
  fs.unlinkSync(entry);
  removed.files += 1;
  removed.bytes += stats.size;
}
