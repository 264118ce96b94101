import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { CheckpointStats } from '../db/embedded-checkpointer.js';

/** An allow-list of addresses and CIDRs, as REDFLAG_METRICS_ALLOW gives it. */
export function addressMatcher(entries: string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => {
    // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d.
    const plain = address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
    if (isIPv4(plain)) return list.check(plain, 'ipv4');
    return isIPv6(plain) && list.check(plain, 'ipv6');
  };
}

/**
 * Prometheus figures: requests by route and status, latency, the database pool and seals. They tell
 * outsiders the traffic, so only an operator key or an address in `allow` may read them.
 */
export function registerMetrics(
  app: FastifyInstance,
  pool: pg.Pool,
  options: {
    allow: string[];
    /** Embedded: the checkpoints the service runs for PGlite (src/db/embedded-checkpointer.ts). */
    checkpoints?: (() => CheckpointStats) | undefined;
  },
  /** Values sealed by this process per data key id (src/crypto/keyring.ts). */
  sealCounts: () => ReadonlyMap<string, number> = () => new Map(),
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const poolGauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  // A counter read at scrape time: sum `increase()` over instances to see a key's use (README, "Encryption keys").
  new Counter({
    name: 'redflag_seals_total',
    help: 'Values sealed (AES-256-GCM) by this process, per data key id',
    labelNames: ['key_id'],
    registers: [registry],
    collect() {
      // The keyring counts; each scrape sets the counter to its totals.
      this.reset();
      for (const [keyId, count] of sealCounts()) this.inc({ key_id: keyId }, count);
    },
  });
  const checkpoints = options.checkpoints;
  if (checkpoints) {
    // Counters read at scrape time, as the seals above: each request on the embedded engine waits while one runs.
    const checkpointCounter = (name: string, help: string, read: (stats: CheckpointStats) => number) =>
      new Counter({
        name,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc(read(checkpoints()));
        },
      });
    checkpointCounter(
      'redflag_embedded_checkpoints_total',
      'Checkpoints run on the embedded database for WAL volume',
      (s) => s.count,
    );
    checkpointCounter(
      'redflag_embedded_checkpoint_seconds_total',
      'Time the embedded database spent in those checkpoints, requests waiting',
      (s) => s.seconds,
    );
  }
  poolGauge('db_pool_connections', 'Connections open to the database', () => pool.totalCount);
  poolGauge('db_pool_idle_connections', 'Open connections not in use', () => pool.idleCount);
  poolGauge('db_pool_waiting_requests', 'Queries waiting for a connection', () => pool.waitingCount);

  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      // The route pattern, never the raw URL: ids would make every report its own series.
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  app.get(
    '/metrics',
    {
      config: { auth: 'operator', keylessFrom: addressMatcher(options.allow) },
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        produces: ['text/plain'],
        response: { 200: { type: 'string', description: 'Prometheus text format' } },
      },
    },
    async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
  return registry;
}
