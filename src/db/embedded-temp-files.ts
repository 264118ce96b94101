import fs from 'node:fs';
import path from 'node:path';

export interface RemovedTempFiles {
  files: number;
  bytes: number;
  /** Entries that could not be removed or listed (left, as PostgreSQL leaves them), and the first reason. */
  failed: number;
  firstFailure?: string;
}

/** A temporary relation's file: `t<backend>_<relfilenode>`, then an optional fork and segment. */
const TEMP_RELATION_FILE = /^t\d+_\d+(_(fsm|vm|init))?(\.\d+)?$/;
const TEMP_FILE_PREFIX = 'pgsql_tmp';

/**
 * What PostgreSQL's postmaster does at every start (`RemovePgTempFiles`), and PGlite never does:
 * single-user mode has no postmaster. A sort, hash or index build that outgrows `work_mem` spills
 * to `base/pgsql_tmp`, and a temporary table keeps its pages in `t…` files; a clean end removes
 * both, a `kill -9` or a power cut leaves them, and nothing would ever remove them (a sort of
 * 3,000,000 rows killed half-way left 164 MB; decision 0111).
 *
 * Only safe with no backend running on these files: the caller holds the data directory's lock
 * and has not opened PGlite yet. Tablespaces are not looked in: Redflag creates none, and a
 * tablespace's directory may be shared with another cluster that this lock does not cover. Like
 * PostgreSQL, an entry that cannot be removed is counted and passed over, not the end of the walk.
 */
export function removeCrashTempFiles(pgdata: string): RemovedTempFiles {
  const removed: RemovedTempFiles = { files: 0, bytes: 0, failed: 0 };
  const spills = path.join(pgdata, 'base', TEMP_FILE_PREFIX);
  for (const name of listing(spills, removed) ?? []) {
    if (name.startsWith(TEMP_FILE_PREFIX)) removeSpill(path.join(spills, name), removed);
  }
  const base = path.join(pgdata, 'base');
  for (const database of (listing(base, removed) ?? []).filter((name) => /^\d+$/.test(name))) {
    const dir = path.join(base, database);
    for (const name of listing(dir, removed) ?? []) {
      if (TEMP_RELATION_FILE.test(name)) removeFile(path.join(dir, name), removed);
    }
  }
  return removed;
}

/** A directory that is not there has nothing to remove; one that cannot be read is a failure (undefined). */
function listing(dir: string, removed: RemovedTempFiles): string[] | undefined {
  try {
    return fs.readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    failed(removed, error);
    return undefined;
  }
}

/** A spill is a file, or a shared file set's directory of files (`pgsql_tmp<pid>.<n>.fileset`). */
function removeSpill(entry: string, removed: RemovedTempFiles): void {
  let isDirectory: boolean;
  try {
    isDirectory = fs.lstatSync(entry).isDirectory();
  } catch (error) {
    failed(removed, error);
    return;
  }
  if (!isDirectory) {
    removeFile(entry, removed);
    return;
  }
  const names = listing(entry, removed);
  if (names === undefined) return;
  const failedBefore = removed.failed;
  for (const name of names) removeSpill(path.join(entry, name), removed);
  // Not emptied: the file left is the failure to report, not the directory it keeps.
  if (removed.failed > failedBefore) return;
  try {
    fs.rmdirSync(entry);
  } catch (error) {
    failed(removed, error);
  }
}

/** `lstat` and `unlink`: a symbolic link is removed itself, never what it points to. */
function removeFile(file: string, removed: RemovedTempFiles): void {
  try {
    const { size } = fs.lstatSync(file);
    fs.unlinkSync(file);
    removed.files += 1;
    removed.bytes += size;
  } catch (error) {
    failed(removed, error);
  }
}

function failed(removed: RemovedTempFiles, error: unknown): void {
  removed.failed += 1;
  removed.firstFailure ??= (error as Error).message;
}
