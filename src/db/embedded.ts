import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * PGlite's defaults minus `-F`: PGlite starts PostgreSQL with fsync off, so a committed row
 * could be lost on a power cut. We keep fsync on, and route WAL syncs through fsync() because
 * the WebAssembly runtime ignores fdatasync().
 */
const DURABLE_START_PARAMS = [
  '--single',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
  '-c',
  'fsync=on',
  '-c',
  'synchronous_commit=on',
  '-c',
  'wal_sync_method=fsync',
  // PGlite's 128 MB of shared buffers are WebAssembly memory, resident from start-up on. Pages not in
  // them are read through the operating system's page cache, which is not this process's memory:
  // at 1,000,000 identifiers 32 MB cost no measurable search time and saved about 100 MB of RSS.
  '-c',
  'shared_buffers=32MB',
  // No checkpointer process, and single-user mode never checkpoints for WAL volume by itself:
  // embedded-checkpointer.ts does, every 32 MB. Here these only bound the segments a checkpoint
  // keeps for reuse: PostgreSQL's defaults would keep up to 1 GB of them.
  '-c',
  'max_wal_size=96MB',
  '-c',
  'min_wal_size=32MB',
];

interface EmscriptenStream {
  nfd?: number;
}
interface EmscriptenModuleWithNodeFs {
  NODEFS: { stream_ops: { fsync?: (stream: EmscriptenStream) => number } };
}

/** Emscripten's NODEFS has no fsync: PostgreSQL's fsync() calls would silently do nothing. */
class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]) {
    const result = await super.init(pg, opts);
    const preRun = (result.emscriptenOpts.preRun ?? []) as unknown[];
    preRun.push((mod: EmscriptenModuleWithNodeFs) => {
      mod.NODEFS.stream_ops.fsync = (stream) => {
        if (stream.nfd !== undefined) fs.fsyncSync(stream.nfd);
        return 0;
      };
    });
    result.emscriptenOpts.preRun = preRun as typeof result.emscriptenOpts.preRun;
    return result;
  }
}

/** Where the embedded PostgreSQL keeps its files inside Redflag's data directory. */
export function embeddedPgdata(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

/** Opens (creating on first use) the embedded PostgreSQL whose files live in `<dataDir>/pgdata`. */
export async function openPglite(dataDir: string, extraStartParams: string[] = [], database = 'postgres'): Promise<PGlite> {
  const pgdata = embeddedPgdata(dataDir);
  fs.mkdirSync(pgdata, { recursive: true, mode: 0o700 });
  const pglite = new PGlite({
    fs: new DurableNodeFS(pgdata),
    database,
    startParams: [...DURABLE_START_PARAMS, ...extraStartParams],
  });
  try {
    await pglite.waitReady;
  } catch (error) {
    // Let go of what it opened of the data directory, if anything is left to let go of.
    await pglite.close().catch(() => {});
    throw error;
  }
  return pglite;
}
