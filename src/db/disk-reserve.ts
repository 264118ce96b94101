import fs from 'node:fs';

/** PostgreSQL's own SQLSTATE for it (`disk_full`): a 503 the client may retry, on either engine. */
export const DISK_FULL_SQLSTATE = '53100';

export class DiskReserveError extends Error {
  readonly code = DISK_FULL_SQLSTATE;
}

/** How often the free space is read: one statfs call. */
const CHECK_EVERY_MS = 1_000;

export interface DiskReserve {
  /** The error to refuse new work with while the disk is under the reserve. */
  refusal(): DiskReserveError | undefined;
  stop(): void;
}

const megabytes = (bytes: number) => Math.floor(bytes / (1024 * 1024));

/**
 * Node's statfs gives no fragment size, so this is `bavail × bsize`. That is right on the usual
 * local filesystems (ext4, xfs, tmpfs), where the two sizes are equal, and overstated where the
 * block size is larger (some network and FUSE filesystems): there the reserve may never trip.
 */
export function freeBytes(dir: string): number {
  const stats = fs.statfsSync(dir);
  return stats.bavail * stats.bsize;
}

function describe(dir: string, free: number, reserveBytes: number): string {
  return `The disk holding ${dir} has ${megabytes(free)} MB free, under the ${megabytes(reserveBytes)} MB kept in reserve (REDFLAG_DISK_RESERVE_MB)`;
}

/**
 * PGlite cannot run out of disk gracefully: when a write to its files fails for want of space it
 * either fails that statement and then hangs the next, or spins at once, and since it runs on
 * Node's main thread the whole process stops answering, `/healthz` included, until it is killed.
 * So the embedded engine keeps a reserve: while the free space of the data directory's disk is
 * under it, the pool hands its connection to no more work (prepared-pool.ts; a 503 with
 * `Retry-After`, like a server that is away), the WAL flusher and the checkpointer excepted, and
 * work resumes by itself once space is freed (decision 0110). Throws at once when the disk is
 * already under the reserve: opening the database writes too.
 */
export function keepDiskReserve(
  dir: string,
  reserveBytes: number,
  onChange: (message: string) => void,
  checkEveryMs = CHECK_EVERY_MS,
): DiskReserve {
  const first = freeBytes(dir);
  if (first < reserveBytes)
    throw new DiskReserveError(`${describe(dir, first, reserveBytes)}: free some space first, or lower the reserve.`);
  let refusal: DiskReserveError | undefined;
  const timer = setInterval(() => {
    let free: number;
    try {
      free = freeBytes(dir);
    } catch {
      return; // The directory unreadable for a moment: the last reading stands.
    }
    if (free < reserveBytes && !refusal) {
      refusal = new DiskReserveError(`${describe(dir, free, reserveBytes)}: database work is refused until space is freed.`);
      onChange(refusal.message);
    } else if (free >= reserveBytes && refusal) {
      refusal = undefined;
      onChange(`The disk holding ${dir} has ${megabytes(free)} MB free again: database work resumes.`);
    }
  }, checkEveryMs);
  timer.unref();
  return {
    refusal: () => refusal,
    stop: () => clearInterval(timer),
  };
}
