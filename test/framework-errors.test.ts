import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../src/http/envelope.js';
import { rawExchange } from './helpers/raw-http.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

// Ports of this file's own (engineer block 4200–4299), so raw sockets reach a listening app.
const PORT = 4230;
const CLOSING_PORT = 4231;

let t: TestApp;

beforeAll(async () => {
  // At debug, so the malformed requests' own log lines are written (and read below).
  t = await buildTestApp({ config: { logLevel: 'debug' } });
  await t.app.listen({ port: PORT, host: '127.0.0.1' });
});
afterAll(() => t.close());

function expectEnvelope(res: { status: number; headers: Record<string, string>; body: string }, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = JSON.parse(res.body);
  expect(body).toEqual({
    success: false,
    message: expect.any(String),
    data: expect.objectContaining({ code, requestId: expect.any(String) }),
  });
  expect(res.headers['x-request-id']).toBe(body.data.requestId);
  // The headers every answer carries, these included.
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
}

const asRaw = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) => ({
  status: res.statusCode,
  headers: res.headers as Record<string, string>,
  body: res.body,
});

describe('errors raised before a route runs', () => {
  it('answers a path that is not valid percent-encoding with 400 VALIDATION_FAILED naming the path', async () => {
    for (const url of ['/api/v1/external/reports/submissions/%zz', '/api/v1/admin/keys/%E0%A4%A/revoke', '/api/v1/files/%']) {
      const res = asRaw(await t.app.inject({ method: 'GET', url }));
      expectEnvelope(res, 400, 'VALIDATION_FAILED');
      expect(JSON.parse(res.body).data.errors).toEqual([{ field: 'path', message: expect.stringContaining('percent-encoding') }]);
    }
  });

  it('answers a path parameter over the router limit with 414 URI_TOO_LONG in the envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/external/reports/submissions/${'a'.repeat(150)}` });
    expectEnvelope(asRaw(res), 414, 'URI_TOO_LONG');
  });

  it("answers Node's own 400 for malformed HTTP in the envelope, on the socket", async () => {
    for (const request of [
      'GET\u0000 / HTTP/1.1\r\nhost: x\r\n\r\n',
      'G E T / HTTP/1.1\r\n\r\n',
      'GET / HTTP/1.1\r\nbad header\r\n\r\n',
      // No Host, which HTTP/1.1 requires (Node's own answer to it had no envelope and no request id).
      'GET /healthz HTTP/1.1\r\nconnection: close\r\n\r\n',
    ]) {
      const [res] = await rawExchange(PORT, [request]);
      expect(res).toBeDefined();
      expectEnvelope(res as NonNullable<typeof res>, 400, 'BAD_REQUEST');
    }
  });

  it('logs a malformed request without its bytes: no key, cookie or identifier from the request line', async () => {
    const secret = 'rf_live_malformed_secret_key_value';
    const [res] = await rawExchange(PORT, [
      `GET /api/v1/external/reports/08031234567 HTTP/1.1\r\nx-api-key: ${secret}\r\ncookie: redflag_session=s3ss10n\r\nbad header\r\n\r\n`,
    ]);
    expectEnvelope(res as NonNullable<typeof res>, 400, 'BAD_REQUEST');
    const logged = t.logLines.filter((line) => line.includes('malformed request'));
    expect(logged.length).toBeGreaterThan(0);
    // Buffers are logged as byte arrays: read them back as text before looking.
    const asText = t.logLines
      .join('\n')
      .replace(/\{"type":"Buffer","data":\[([\d,]*)\]\}/g, (_all, bytes: string) =>
        Buffer.from(bytes.split(',').map(Number)).toString('latin1'),
      );
    for (const text of [secret, 's3ss10n', '08031234567']) expect(asText).not.toContain(text);
  });

  it('takes a body cut short by the client for the client going away, not for a database outage', async () => {
    const { connect } = await import('node:net');
    const before = t.logLines.length;
    const socket = connect(PORT, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /api/v1/public/reports HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"fraudType":"theft",',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    // Given the time the outage warning took to appear before, nothing at warn or above is written.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const warnings = t.logLines.slice(before).filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
    expect(warnings).toEqual([]);
  });

  it("answers Node's 431 for headers that are too large in the envelope", async () => {
    const [res] = await rawExchange(PORT, [`GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`]);
    expect(res).toBeDefined();
    expectEnvelope(res as NonNullable<typeof res>, 431, 'HEADERS_TOO_LARGE');
  });
});

describe("a plugin's own client errors (the docs' static files)", () => {
  it('keep their status and come in the envelope: a path climbing out, a Range or If-Match that cannot be met', async () => {
    const cases: Array<[string, number, string]> = [
      ['GET /docs/static/%2e%2e/%2e%2e/package.json HTTP/1.1\r\nhost: x\r\n\r\n', 403, 'FORBIDDEN'],
      ['GET /docs/static/index.css HTTP/1.1\r\nhost: x\r\nrange: bytes=99999999-\r\n\r\n', 416, 'RANGE_NOT_SATISFIABLE'],
      ['GET /docs/static/index.css HTTP/1.1\r\nhost: x\r\nif-match: "other"\r\n\r\n', 412, 'PRECONDITION_FAILED'],
    ];
    for (const [request, status, code] of cases) {
      const [res] = await rawExchange(PORT, [request.replace('\r\n\r\n', '\r\nconnection: close\r\n\r\n')]);
      expect(res, request).toBeDefined();
      expectEnvelope(res as NonNullable<typeof res>, status, code);
    }
  });
});

describe('a request on a kept-alive connection while the service closes', () => {
  it('gets 503 UNAVAILABLE in the envelope with Retry-After, and the connection is closed', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const closing = await buildTestApp({
      beforeReady(app) {
        app.get('/test/slow', async () => {
          entered();
          await gate;
          return ok({}, 'Done');
        });
      },
    });
    await closing.app.listen({ port: CLOSING_PORT, host: '127.0.0.1' });
    let closed: Promise<void> | undefined;
    const responses = await rawExchange(
      CLOSING_PORT,
      ['GET /test/slow HTTP/1.1\r\nhost: x\r\n\r\n', 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n'],
      {
        pipeline: true,
        async beforeWrite(i) {
          if (i !== 1) return;
          // The first request is in its handler (so the connection is busy, not idle) when closing begins.
          await inHandler;
          closed = closing.close();
          await new Promise((resolve) => setTimeout(resolve, 50));
          release();
        },
      },
    );
    await closed;
    expect(responses.map((r) => r.status)).toEqual([200, 503]);
    const unavailable = responses[1] as NonNullable<(typeof responses)[1]>;
    expectEnvelope(unavailable, 503, 'UNAVAILABLE');
    expect(unavailable.headers['retry-after']).toBe('1');
    expect(unavailable.headers.connection).toBe('close');
    // The security headers are set before the closing check, so this answer is not kept either.
    expect(unavailable.headers['cache-control']).toBe('no-store');
  });
});
