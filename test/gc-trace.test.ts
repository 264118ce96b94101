import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { describeGc, gcTrace, isGcLine, parseGcLine } from '../src/bench/gc-trace.js';

// A real Node writing real `--trace-gc` lines, so a V8 that words them differently fails here
// (CI runs Node 20 and 24) rather than leaving the bench's GC line silently empty.
const ALLOCATE = `
let young = [];
for (let i = 0; i < 400000; i++) { young.push({ i, s: 'x' + i }); if (young.length > 20000) young = []; }
globalThis.gc();
`;

describe("the bench's GC trace", () => {
  it('counts every scavenge and mark-compact a process reports, with its pause', async () => {
    const child = spawn(process.execPath, ['--trace-gc', '--expose-gc', '-e', ALLOCATE], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
    });
    const trace = gcTrace(child.stdout);
    await once(child, 'close');
    const gc = trace.between(0, performance.now());
    const reported = text.split('\n').filter((line) => / ms: /.test(line));
    expect(reported.length).toBeGreaterThan(1);
    expect(gc.minor.count + gc.major.count).toBe(reported.length);
    expect(gc.minor.count).toBeGreaterThan(0);
    // globalThis.gc() is a full collection.
    expect(gc.major.count).toBeGreaterThan(0);
    expect(gc.processes).toBe(1);
    expect(gc.minor.totalMs).toBeGreaterThan(0);
    expect(gc.minor.longestMs).toBeGreaterThanOrEqual(gc.minor.medianMs);
    expect(trace.between(performance.now() + 1, performance.now() + 2)).toEqual({
      minor: { count: 0, totalMs: 0, medianMs: 0, longestMs: 0 },
      major: { count: 0, totalMs: 0, medianMs: 0, longestMs: 0 },
      processes: 0,
    });
  });

  it('reads the pause of each wording and nothing from other lines', () => {
    expect(
      parseGcLine(
        '[4242:0x6b1c2a0]     5123 ms: Scavenge 41.2 (52.3) -> 38.0 (53.1) MB, 11.53 / 0.00 ms  (average mu = 1.000) allocation failure;',
      ),
    ).toEqual({ pid: '4242', kind: 'minor', ms: 11.53 });
    expect(
      parseGcLine('[7:0xa1] 9876 ms: Mark-Compact 60.1 (80.0) -> 40.2 (78.5) MB, 35.10 / 0.02 ms  (+ 4.1 ms in 20 steps'),
    ).toEqual({ pid: '7', kind: 'major', ms: 35.1 });
    expect(
      parseGcLine('[7:0xa1] 12 ms: Scavenge (interleaved) 5.2 (6.0) -> 4.9 (7.0) MB, pooled: 0 MB, 1.12 / 0.00 ms (average'),
    ).toEqual({ pid: '7', kind: 'minor', ms: 1.12 });
    expect(parseGcLine('{"level":40,"msg":"Scavenge 1.0 MB, 2 / 0 ms"}')).toBeUndefined();
  });

  it('joins a line split across chunks and counts only the pauses read inside the window', async () => {
    const stream = new PassThrough();
    const trace = gcTrace(stream);
    const line = (pid: number, kind: string, ms: number) =>
      `[${pid}:0x1]  10 ms: ${kind} 4.0 (5.0) -> 3.0 (5.0) MB, ${ms} / 0.00 ms  (average mu`;
    const before = line(1, 'Scavenge', 1);
    const inside = [line(1, 'Scavenge', 2), line(2, 'Scavenge', 4), line(2, 'Mark-Compact', 8)];
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    stream.write(`${before}\n`);
    await tick();
    const start = performance.now();
    // The first line in two chunks, the next two in one chunk with a log line between them.
    stream.write(`${inside[0]?.slice(0, 30)}`);
    stream.write(`${inside[0]?.slice(30)}\n${inside[1]}\n{"level":50,"msg":"x"}\n${inside[2]}\n`);
    await tick();
    const end = performance.now();
    await tick();
    stream.write(`${line(3, 'Scavenge', 16)}\n`);
    await tick();
    expect(trace.between(start, end)).toEqual({
      minor: { count: 2, totalMs: 6, medianMs: 2, longestMs: 4 },
      major: { count: 1, totalMs: 8, medianMs: 8, longestMs: 8 },
      processes: 2,
    });
    expect(isGcLine(before)).toBe(true);
    expect(isGcLine('{"level":50,"msg":"x"}')).toBe(false);
  });

  it('says how long the service paused per request', () => {
    const pauses = (count: number, totalMs: number) => ({
      count,
      totalMs,
      medianMs: totalMs / count,
      longestMs: totalMs / count,
    });
    const none = { count: 0, totalMs: 0, medianMs: 0, longestMs: 0 };
    expect(describeGc('search', { minor: pauses(4, 40), major: pauses(1, 10), processes: 2 }, 1000)).toBe(
      'service GC during search (2 processes): 4 scavenges (median 10.0, longest 10.0, 40 ms in all), 1 mark-compact (median 10.0, longest 10.0, 10 ms in all); 0.050 ms paused per request',
    );
    expect(describeGc('search', { minor: none, major: none, processes: 0 }, 0)).toBe(
      'service GC during search (0 processes): no scavenges, no mark-compacts; no request completed',
    );
  });
});
