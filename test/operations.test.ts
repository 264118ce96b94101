import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { batchConcurrencyFor } from '../src/modules/search/search.service.js';
import { createCompany, createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';
import { engine } from './helpers/test-database.js';

describe('/metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { metricsAllow: ['10.1.0.0/16', '192.0.2.7'] } });
  });
  afterAll(async () => {
    await t?.close();
  });

  const metrics = (options: { remoteAddress?: string; apiKey?: string } = {}) =>
    t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: options.remoteAddress ?? '203.0.113.9',
      ...(options.apiKey ? { headers: key(options.apiKey) } : {}),
    });

  it('is refused to a stranger and to a company key, in the envelope', async () => {
    const stranger = await metrics();
    expect(stranger.statusCode).toBe(401);
    expect(stranger.json()).toMatchObject({ success: false, data: { code: 'API_KEY_MISSING' } });
    const company = await createCompany(t);
    expect((await metrics({ apiKey: company.apiKey })).statusCode).toBe(403);
  });

  it('is served to an operator key from anywhere', async () => {
    const operator = await createOperator(t);
    const res = await metrics({ apiKey: operator.apiKey });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('http_requests_total');
    // The embedded engine's own checkpoints (PGlite has no checkpointer); a server's are PostgreSQL's business.
    if (engine === 'embedded') expect(res.body).toMatch(/^redflag_embedded_checkpoints_total \d+$/m);
    else expect(res.body).not.toContain('redflag_embedded_checkpoints_total');
  });

  it('is served without a key to an address in REDFLAG_METRICS_ALLOW (addresses and CIDRs)', async () => {
    expect((await metrics({ remoteAddress: '10.1.200.3' })).statusCode).toBe(200);
    expect((await metrics({ remoteAddress: '192.0.2.7' })).statusCode).toBe(200);
    expect((await metrics({ remoteAddress: '::ffff:10.1.0.1' })).statusCode).toBe(200);
    expect((await metrics({ remoteAddress: '10.2.0.1' })).statusCode).toBe(401);
  });
});

describe('the production configuration', () => {
  it('shares REDFLAG_DB_MAX_CONNECTIONS between the workers instead of multiplying a pool per worker', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db/x', REDFLAG_WORKERS: '8', REDFLAG_DB_MAX_CONNECTIONS: '20' });
    expect(config.databasePoolSize).toBe(2);
    expect(config.databasePoolSize * config.workers).toBeLessThanOrEqual(20);
    // By default every worker gets at least two, so one slow statement does not hold a worker's requests.
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', REDFLAG_WORKERS: '16' }).databasePoolSize).toBeGreaterThanOrEqual(2);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/x', REDFLAG_WORKERS: '8', REDFLAG_DB_MAX_CONNECTIONS: '4' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ REDFLAG_DB_POOL_SIZE: '10' })).toThrow(/REDFLAG_DB_MAX_CONNECTIONS/);
  });

  it('sizes the connections by default to the cores PostgreSQL can keep busy, not a fixed 20', () => {
    const cores = os.availableParallelism();
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', REDFLAG_WORKERS: '1' }).databaseMaxConnections).toBe(2 * cores + 2);
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', REDFLAG_WORKERS: '64' }).databaseMaxConnections).toBe(
      Math.max(128, 2 * cores + 2),
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x', REDFLAG_DB_MAX_CONNECTIONS: '20' }).databaseMaxConnections).toBe(20);
  });

  it("leaves single searches a connection while a batch's searches run", () => {
    expect([1, 2, 3, 5, 10].map(batchConcurrencyFor)).toEqual([1, 1, 2, 4, 4]);
  });

  it('bounds database waits, readiness and HTTP timeouts by default, each configurable', () => {
    expect(loadConfig({})).toMatchObject({
      databaseConnectTimeoutMs: 2_000,
      databaseStatementTimeoutMs: 5_000,
      readyTimeoutMs: 1_500,
      requestTimeoutMs: 600_000,
      keepAliveTimeoutMs: 65_000,
      connectionTimeoutMs: 70_000,
      metricsAllow: [],
    });
    expect(
      loadConfig({
        REDFLAG_DB_CONNECT_TIMEOUT_MS: '700',
        REDFLAG_DB_STATEMENT_TIMEOUT_MS: '3000',
        REDFLAG_READY_TIMEOUT_MS: '900',
        REDFLAG_REQUEST_TIMEOUT_MS: '20000',
        REDFLAG_CONNECTION_TIMEOUT_MS: '30000',
        REDFLAG_KEEP_ALIVE_TIMEOUT_MS: '5000',
        REDFLAG_METRICS_ALLOW: '127.0.0.1, 10.0.0.0/8',
      }),
    ).toMatchObject({
      databaseConnectTimeoutMs: 700,
      databaseStatementTimeoutMs: 3_000,
      readyTimeoutMs: 900,
      requestTimeoutMs: 20_000,
      connectionTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      metricsAllow: ['127.0.0.1', '10.0.0.0/8'],
    });
    expect(() => loadConfig({ REDFLAG_METRICS_ALLOW: 'everyone' })).toThrow(ConfigError);
  });
});

describe('a client that starts a request and never finishes it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { requestTimeoutMs: 1_000 } });
    await t.app.listen({ port: 4111, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is answered 408 and disconnected once the request timeout has passed, not held for ever', async () => {
    const socket = net.connect(4111, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.write(
      'POST /api/v1/public/reports HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    await new Promise((resolve) => socket.on('close', resolve));
    expect(received).toMatch(/^HTTP\/1\.1 408/);
  });
});
