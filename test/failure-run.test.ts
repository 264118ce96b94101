import { describe, expect, it } from 'vitest';
import { createFailureRun, RESTATE_FAILURE_MS } from '../src/jobs/failure-run.js';

/** A log that keeps what it was told, and a clock the test moves. */
function setUp() {
  const lines: Array<{ level: 'info' | 'warn' | 'error'; msg: string; obj: Record<string, unknown> }> = [];
  const log = {
    info: (obj: object, msg: string) => lines.push({ level: 'info', msg, obj: obj as Record<string, unknown> }),
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', msg, obj: obj as Record<string, unknown> }),
    error: (obj: object, msg: string) => lines.push({ level: 'error', msg, obj: obj as Record<string, unknown> }),
  };
  let now = 1_000_000;
  const run = createFailureRun(log, 'the loop', () => now);
  return { lines, run, advance: (ms: number) => (now += ms) };
}

const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const bug = () => new Error('column "nope" does not exist');

describe('a run of failures in a retrying loop', () => {
  it('is said when it starts, once a minute while it lasts, and when it ends, with its count and length', () => {
    const { lines, run, advance } = setUp();
    run.failed(outage());
    for (let i = 0; i < 100; i++) {
      advance(500);
      run.failed(outage());
    }
    // 101 failures over 50 s: said once.
    expect(lines.map(({ level, msg }) => `${level} ${msg}`)).toEqual(['warn the loop could not run; retrying']);

    advance(RESTATE_FAILURE_MS - 50_000);
    run.failed(outage());
    advance(500);
    run.failed(outage());
    expect(lines.slice(1).map(({ level, msg, obj }) => [level, msg, obj.failedAttempts])).toEqual([
      ['warn', 'the loop still cannot run', 102],
    ]);

    advance(2_000);
    run.succeeded();
    run.succeeded();
    expect(lines.slice(2).map(({ level, msg, obj }) => [level, msg, obj.failedAttempts, obj.seconds])).toEqual([
      ['info', 'the loop runs again after 103 failed attempts', 103, 63],
    ]);
  });

  it('is said again at once when its kind changes between an outage and an error', () => {
    const { lines, run, advance } = setUp();
    run.failed(outage());
    advance(100);
    run.failed(bug());
    advance(100);
    run.failed(bug());
    advance(100);
    run.failed(outage());
    expect(lines.map(({ level, msg }) => `${level} ${msg}`)).toEqual([
      'warn the loop could not run; retrying',
      'error the loop still cannot run',
      'warn the loop still cannot run',
    ]);
    expect(lines[1]?.obj.err).toBeInstanceOf(Error);
  });

  it('starts afresh after it ends, and a success with no failure before says nothing', () => {
    const { lines, run, advance } = setUp();
    run.succeeded();
    run.failed(bug());
    run.succeeded();
    advance(1_000);
    run.failed(bug());
    expect(lines.map(({ level, msg }) => `${level} ${msg}`)).toEqual([
      'error the loop could not run; retrying',
      'info the loop runs again after 1 failed attempt',
      'error the loop could not run; retrying',
    ]);
  });

  it('never throws when the log does (a stream ended at shutdown)', () => {
    const throwing = () => {
      throw new Error('SonicBoom destroyed');
    };
    const run = createFailureRun({ info: throwing, warn: throwing, error: throwing }, 'the loop');
    expect(() => run.failed(outage())).not.toThrow();
    expect(() => run.succeeded()).not.toThrow();
  });
});
