// Starts a server process the way production does (`node dist/server.js` on a free port) and
// reads its resource figures from /proc.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The process ids of a process's children (a cluster's workers), none once it is gone. */
export function childrenOf(pid) {
  const children = [];
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) children.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // The process is gone.
  }
  return children;
}

function rssOf(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const TICKS_PER_SECOND = 100;

function cpuOf(pid) {
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
  } catch {
    return 0;
  }
}

/** CPU time (user + system, ms) used so far by a process and its live descendants. */
export function treeCpuMs(pid) {
  let total = cpuOf(pid);
  for (const child of childrenOf(pid)) total += treeCpuMs(child);
  return total;
}

/** CPU time (ms) so far of each PostgreSQL server process on this machine (the server engine's database side). */
export function postgresCpuMs() {
  const byPid = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') byPid.set(entry, cpuOf(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return byPid;
}

/** CPU used between two `postgresCpuMs()` readings by the processes alive at the second (ones that exited meanwhile are lost). */
export function postgresCpuBetween(before, after) {
  let total = 0;
  for (const [pid, ms] of after) total += Math.max(0, ms - (before.get(pid) ?? 0));
  return total;
}

/**
 * The whole machine's CPU so far, from /proc/stat's first line: `busy` and `total` in ticks across
 * all cores (idle and I/O wait are the not-busy part). Two readings give the share of the machine's
 * cores that were busy between them, whoever used them: with PostgreSQL and the load generator on the
 * same cores, this is what says when adding a worker can no longer add throughput.
 */
export function machineCpuTicks() {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** The share (0–1) of all the machine's cores that was busy between two `machineCpuTicks()` readings. */
export function machineBusyBetween(before, after) {
  const total = after.total - before.total;
  return total > 0 ? (after.busy - before.busy) / total : 0;
}

/** Resident memory of a process and all its descendants (cluster workers included), in bytes. */
export function treeRss(pid) {
  let total = rssOf(pid);
  for (const child of childrenOf(pid)) total += treeRss(child);
  return total;
}

/**
 * Spawns `node <script>` and waits until `probe(baseUrl)` succeeds; the time from spawn to that first
 * served request is the cold start. Output is kept (the last lines, less those `omitFromOutput(line)`
 * picks) for error messages.
 */
export async function startProcess({ script, env, nodeArgs = [], probe, timeoutMs = 180_000, omitFromOutput }) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk) => {
    // Lines such as --trace-gc's would push the errors out of the tail an error message shows.
    const text = omitFromOutput
      ? String(chunk)
          .split('\n')
          .filter((line) => !omitFromOutput(line))
          .join('\n')
      : chunk;
    output = (output + text).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let exitInfo;
  exited.then((info) => {
    exitInfo = info;
  });

  for (;;) {
    if (exitInfo) throw new Error(`${script} exited (${exitInfo.code ?? exitInfo.signal}) before serving:\n${output}`);
    if (performance.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not serve within ${timeoutMs / 1000} s:\n${output}`);
    }
    try {
      if (await probe(baseUrl)) break;
    } catch {
      // Not listening yet.
    }
    await sleep(5);
  }
  const coldStartMs = performance.now() - started;

  return {
    pid: child.pid,
    baseUrl,
    coldStartMs,
    rss: () => treeRss(child.pid),
    cpuMs: () => treeCpuMs(child.pid),
    output: () => output,
    /** The process's standard output as it comes (every cluster worker's too), e.g. for `--trace-gc`. */
    stdout: child.stdout,
    async stop() {
      if (exitInfo) return exitInfo;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const info = await exited;
      clearTimeout(timer);
      return info;
    },
  };
}
