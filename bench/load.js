// One scenario under load: autocannon as a library, a short warm-up, then the measured run.
import autocannon from 'autocannon';

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function run(options, onResponse) {
  const instance = autocannon(options);
  if (onResponse) instance.on('response', (_client, _status, bytes, responseTime) => onResponse(responseTime, bytes));
  return instance;
}

/**
 * Latency by the size of the answer (bytes on the wire, headers included): in a mix of searches the
 * size tells a miss, a unique hit and a common hit apart without parsing a body, so the load
 * generator spends nothing on it. `classes` is `[{ name, under }]` in rising `under` (bytes; the
 * last may be Infinity). Each class: how many, p50 and p99, and its part of the slowest 1%.
 */
function latencyBySize(times, sizes, classes, p99) {
  const tail = times.filter((t) => t > p99).length;
  return classes.map(({ name, under }, c) => {
    const from = c === 0 ? 0 : classes[c - 1].under;
    const own = [];
    let inTail = 0;
    for (let i = 0; i < times.length; i++) {
      if (sizes[i] < from || sizes[i] >= under) continue;
      own.push(times[i]);
      if (times[i] > p99) inTail++;
    }
    own.sort((a, b) => a - b);
    return {
      name,
      count: own.length,
      p50: percentile(own, 50),
      p99: percentile(own, 99),
      shareOfSlowest: tail ? inTail / tail : 0,
    };
  });
}

/**
 * When the slowest 1% of answers ended: in how many of the run's tenths of a second. Queueing alone
 * spreads them over the run; a stall (a pause of the service's garbage collector, a core taken
 * away) bunches them into a few tenths.
 */
function tailWindows(times, ends, p99) {
  const first = ends[0];
  const windows = new Set();
  for (let i = 0; i < times.length; i++) if (times[i] > p99) windows.add(Math.floor((ends[i] - first) / 100));
  return { slowestIn: windows.size, of: Math.ceil((ends[ends.length - 1] - first) / 100) || 1 };
}

/**
 * `request` is `{ method, path, headers?, body? }` or a function returning one (called per request,
 * so bodies and keys vary). Latencies are kept with sub-millisecond precision (autocannon's own
 * histogram rounds to whole milliseconds).
 */
export async function measure({
  baseUrl,
  request,
  connections,
  duration,
  warmup = 2,
  onSample,
  onStart,
  keepLatencies = false,
  sizeClasses,
}) {
  const requests = [
    typeof request === 'function'
      ? {
          setupRequest(req) {
            const next = request();
            req.method = next.method;
            req.path = next.path;
            req.headers = next.headers ?? {};
            req.body = next.body;
            return req;
          },
        }
      : request,
  ];
  const base = { url: baseUrl, connections, requests, timeout: 10 };
  if (warmup > 0) await run({ ...base, duration: warmup });

  const latencies = [];
  const sizes = [];
  const ends = [];
  onStart?.();
  const sampler = onSample ? setInterval(onSample, 250) : undefined;
  // The load generator's own CPU (this process: autocannon parses every answer on one thread): if
  // it nears a whole core, the generator, not the service, sets the figure.
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const result = await run({ ...base, duration }, (ms, bytes) => {
    latencies.push(ms);
    sizes.push(bytes);
    ends.push(performance.now());
  });
  const cpuSpent = process.cpuUsage(cpuBefore);
  const loadCpuMs = (cpuSpent.user + cpuSpent.system) / 1000;
  const loadBusy = loadCpuMs / (performance.now() - wallBefore);
  if (sampler) clearInterval(sampler);
  onSample?.();
  // Sorted apart: the by-size and when-in-the-run figures need the answers in the order they came.
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = percentile(sorted, 99);
  const bySize = sizeClasses ? latencyBySize(latencies, sizes, sizeClasses, p99) : undefined;
  const tail = tailWindows(latencies, ends, p99);
  const completed = latencies.length;
  return {
    requestsPerSecond: completed / result.duration,
    p50: percentile(sorted, 50),
    p99,
    p999: percentile(sorted, 99.9),
    errors: result.errors,
    non2xx: result.non2xx,
    statusCodes: result.statusCodeStats,
    completed,
    /** The load generator's CPU per completed request (ms), and its share of one core over the run. */
    loadCpuMs: loadCpuMs / Math.max(1, completed),
    loadBusy,
    // Every latency, when asked: a caller that measures in slices takes percentiles over all of them.
    ...(keepLatencies ? { latencies: sorted } : {}),
    ...(bySize ? { bySize } : {}),
    tail,
  };
}
