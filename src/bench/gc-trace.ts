import type { Readable } from 'node:stream';

// The service's garbage-collector pauses, read from its `--trace-gc` lines (`npm run bench -- --gc`).
// Each line is stamped when the bench reads it, so a scenario's pauses are those read between its
// first measured request and its last answer. That is close enough: Node leaves its standard output
// unbuffered and V8 writes each line in one call, so a line reaches the pipe as its pause ends.
// Every process of the cluster (the primary and its workers) writes to the same pipe.
//
// V8 writes, e.g. (Node 20):
//   [4242:0x6b1c2a0]   5123 ms: Scavenge 41.2 (52.3) -> 38.0 (53.1) MB, 11.53 / 0.00 ms  (average mu = ...
//   [4242:0x6b1c2a0]   9876 ms: Mark-Compact 60.1 (80.0) -> 40.2 (78.5) MB, 35.10 / 0.02 ms  (+ 4.1 ms in 20 steps ...
// and newer V8s may add a kind in brackets ("Scavenge (interleaved)") and "pooled: 0 MB, " before
// the pause. The pause is the first of the two times: what the main thread spent stopped in the
// collection itself. A mark-compact's earlier incremental steps ("+ 4.1 ms in 20 steps") also stop
// the main thread, in short slices; they are not counted.
const LINE = /^\[(\d+):[^\]]+\]\s+[\d.]+ ms: ([A-Za-z-]+)[^,]*MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/;

/** Whether an output line is a `--trace-gc` line (the bench keeps them out of the service's error tail). */
export const isGcLine = (line: string): boolean => LINE.test(line);

export type GcKind = 'minor' | 'major';

export interface GcPauses {
  count: number;
  totalMs: number;
  medianMs: number;
  longestMs: number;
}

export interface GcWindow {
  minor: GcPauses;
  major: GcPauses;
  /** Processes that paused in the window (a cluster's workers, and its primary if it collected). */
  processes: number;
}

/** One `--trace-gc` line's process, kind and pause, or undefined for any other line. */
export function parseGcLine(line: string): { pid: string; kind: GcKind; ms: number } | undefined {
  const match = LINE.exec(line);
  if (!match) return undefined;
  // Scavenges (and the minor mark-sweep newer V8s may use) are minor; mark-compacts and mark-sweeps major.
  const kind = /^(Scavenge|Minor)/.test(match[2] as string) ? 'minor' : 'major';
  return { pid: match[1] as string, kind, ms: Number(match[3]) };
}

/** Follows a `--trace-gc` stream; `between(start, end)` sums the pauses read in that window (performance.now()). */
export function gcTrace(stream: Readable): { between(start: number, end: number): GcWindow } {
  const pauses: Array<{ at: number; pid: string; kind: GcKind; ms: number }> = [];
  let partial = '';
  stream.on('data', (chunk: Buffer | string) => {
    const at = performance.now();
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const pause = parseGcLine(line);
      if (pause) pauses.push({ at, ...pause });
    }
  });
  return {
    between(start, end) {
      const inWindow = pauses.filter(({ at }) => at >= start && at <= end);
      return {
        minor: summary(inWindow.filter(({ kind }) => kind === 'minor').map(({ ms }) => ms)),
        major: summary(inWindow.filter(({ kind }) => kind === 'major').map(({ ms }) => ms)),
        processes: new Set(inWindow.map(({ pid }) => pid)).size,
      };
    },
  };
}

/** Sorts `ms` in place: callers pass an array of their own. */
function summary(ms: number[]): GcPauses {
  ms.sort((a, b) => a - b);
  return {
    count: ms.length,
    totalMs: ms.reduce((sum, each) => sum + each, 0),
    medianMs: ms[Math.floor((ms.length - 1) / 2)] ?? 0,
    longestMs: ms[ms.length - 1] ?? 0,
  };
}

/** One line under the bench's table: how often and how long the service stopped to collect. */
export function describeGc(name: string, gc: GcWindow, completed: number): string {
  const part = (label: string, { count, medianMs, longestMs, totalMs }: GcPauses) =>
    count === 0
      ? `no ${label}s`
      : `${count} ${label}${count === 1 ? '' : 's'} (median ${medianMs.toFixed(1)}, longest ${longestMs.toFixed(1)}, ${Math.round(totalMs)} ms in all)`;
  const paused = gc.minor.totalMs + gc.major.totalMs;
  const perRequest = completed > 0 ? `${(paused / completed).toFixed(3)} ms paused per request` : 'no request completed';
  return (
    `service GC during ${name} (${gc.processes} process${gc.processes === 1 ? '' : 'es'}): ` +
    `${part('scavenge', gc.minor)}, ${part('mark-compact', gc.major)}; ${perRequest}`
  );
}
