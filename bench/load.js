// One scenario under load: autocannon as a library, a short warm-up, then the measured run.
import autocannon from 'autocannon';

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function run(options, onResponseTime) {
  const instance = autocannon(options);
  if (onResponseTime) instance.on('response', (_client, _status, _bytes, responseTime) => onResponseTime(responseTime));
  return instance;
}

/**
 * `request` is `{ method, path, headers?, body? }` or a function returning one (called per request,
 * so bodies and keys vary). Latencies are kept with sub-millisecond precision (autocannon's own
 * histogram rounds to whole milliseconds).
 */
export async function measure({ baseUrl, request, connections, duration, warmup = 2, onSample, onStart, keepLatencies = false }) {
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
  onStart?.();
  const sampler = onSample ? setInterval(onSample, 250) : undefined;
  // The load generator's own CPU (this process: autocannon parses every answer on one thread): if
  // it nears a whole core, the generator, not the service, sets the figure.
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const result = await run({ ...base, duration }, (ms) => latencies.push(ms));
  const cpuSpent = process.cpuUsage(cpuBefore);
  const loadCpuMs = (cpuSpent.user + cpuSpent.system) / 1000;
  const loadBusy = loadCpuMs / (performance.now() - wallBefore);
  if (sampler) clearInterval(sampler);
  onSample?.();
  latencies.sort((a, b) => a - b);
  const completed = latencies.length;
  return {
    requestsPerSecond: completed / result.duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    p999: percentile(latencies, 99.9),
    errors: result.errors,
    non2xx: result.non2xx,
    statusCodes: result.statusCodeStats,
    completed,
    /** The load generator's CPU per completed request (ms), and its share of one core over the run. */
    loadCpuMs: loadCpuMs / Math.max(1, completed),
    loadBusy,
    // Every latency, when asked: a caller that measures in slices takes percentiles over all of them.
    ...(keepLatencies ? { latencies } : {}),
  };
}
