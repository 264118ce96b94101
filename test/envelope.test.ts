import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../src/http/envelope.js';
import { createOperator, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({
    config: { bodyLimit: 2048 },
    beforeReady(app) {
      // Routes that exist only in this test, to drive each error class through the real handlers.
      app.post(
        '/test/echo',
        {
          schema: {
            body: Type.Object(
              {
                name: Type.String({ minLength: 2 }),
                flag: Type.Optional(Type.Boolean()),
                items: Type.Optional(
                  Type.Array(Type.Object({ value: Type.String() }, { additionalProperties: false }), { maxItems: 2 }),
                ),
              },
              { additionalProperties: false },
            ),
            querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })) }),
          },
        },
        async (request) => ok({ received: request.body }, 'Echoed'),
      );
      app.get('/test/boom', async () => {
        throw new Error('select secret from vault -- internal detail');
      });
    },
  });
});
afterAll(() => t.close());

describe('the envelope', () => {
  it('wraps a success as { success, message, data } with a request id header', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'OK', data: { status: 'ok' } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes a caller-supplied x-request-id, and replaces one that is not a plain token', async () => {
    const echoed = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const replaced = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a b\nc' } });
    expect(replaced.headers['x-request-id']).not.toBe('a b\nc');
    // A uuid is kept; one that could be a phone or an account number is not (it would be logged and audited).
    const uuid = '0f8c1234-5678-4abc-9def-012345678901';
    const kept = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': uuid } });
    expect(kept.headers['x-request-id']).toBe(uuid);
    // Tracing ids are kept however many digits they hold; six digits alone are no identifier.
    for (const id of [
      '4bf92f3577b34da6a3ce929d0e0e4736',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      'order-123456',
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': id } });
      expect(res.headers['x-request-id']).toBe(id);
    }
    for (const identifier of ['08031234567', 'cust-0010246780', '080.3123.4567']) {
      const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': identifier } });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('answers an unknown route with the route-not-found body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, message: 'Route not found', data: null });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('answers a known path with a wrong method with the same route-not-found body', async () => {
    for (const method of ['POST', 'DELETE', 'PUT', 'PATCH'] as const) {
      const res = await t.app.inject({ method, url: '/api/v1/meta-data/banks', payload: {} });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ success: false, message: 'Route not found', data: null });
    }
  });

  it('says in words that a text which must not be empty is empty', async () => {
    const operator = await createOperator(t);
    const res = await t.app.inject({
      method: 'POST',
      url: '/reports/search',
      headers: key(operator.apiKey),
      payload: { identifier: 'phone', value: '' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual([{ field: 'value', message: 'must not be empty' }]);
  });

  it('rejects malformed JSON with 400 MALFORMED_JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "ab",',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      data: { code: 'MALFORMED_JSON', requestId: res.headers['x-request-id'] },
    });
  });

  it('treats an empty JSON body as no body: a route that needs one says so', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().data).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'body', message: 'must be an object' }],
    });
  });

  it('rejects a prototype-poisoning body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"ok","__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(400);
    // Valid JSON, refused for a key: said so, not "not valid JSON".
    expect(res.json().message).toBe('The request body uses a key that is not allowed (__proto__ or constructor.prototype)');
  });

  it('rejects a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'x'.repeat(4096) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ success: false, data: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('rejects a text/plain body with 415, like any other non-JSON type', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'text/plain' },
      payload: '{"name":"ok"}',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().data.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('rejects a non-JSON content type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ success: false, data: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('reports each validation failure with a JSON-pointer field and a reason', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/test/echo',
      payload: { name: 'a', flag: 'true', surprise: 1, items: [{ value: 3 }, { value: 'ok', extra: true }, { value: 'x' }] },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ success: false, message: 'Validation failed', data: { code: 'VALIDATION_FAILED' } });
    expect(body.data.errors).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'must be at least 2 characters' },
        { field: 'flag', message: 'must be a boolean' },
        { field: 'surprise', message: 'is not an accepted field' },
        { field: 'items/0/value', message: 'must be a string' },
        { field: 'items/1/extra', message: 'is not an accepted field' },
        { field: 'items', message: 'must have at most 2 items' },
      ]),
    );
  });

  it('names a missing field and a bad query parameter by name', async () => {
    const missing = await t.app.inject({ method: 'POST', url: '/test/echo', payload: {} });
    expect(missing.json().data.errors).toEqual([{ field: 'name', message: 'is required' }]);
    const query = await t.app.inject({ method: 'POST', url: '/test/echo?page=0', payload: { name: 'ok' } });
    expect(query.statusCode).toBe(400);
    expect(query.json().data.errors).toEqual([{ field: 'page', message: 'must be at least 1' }]);
  });

  it('coerces query parameters but not body fields', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/test/echo?page=2&unknown=1', payload: { name: 'ok', flag: true } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, message: 'Echoed', data: { received: { name: 'ok', flag: true } } });
  });

  it('hides an unexpected error behind 500 INTERNAL with the request id, and logs it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test/boom', headers: { 'x-request-id': 'trace-500' } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      success: false,
      message: 'Internal server error',
      data: { code: 'INTERNAL', requestId: 'trace-500' },
    });
    expect(res.body).not.toContain('vault');
    expect(res.body).not.toContain('stack');
    expect(t.logLines.some((line) => line.includes('trace-500') && line.includes('vault'))).toBe(true);
  });

  it('never writes an x-api-key header value to the log', async () => {
    t.app.log.info({ headers: { 'x-api-key': 'rf_secretvalue' } }, 'a request with a key');
    await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-api-key': 'rf_secretvalue' } });
    expect(t.logLines.join('\n')).not.toContain('rf_secretvalue');
    expect(t.logLines.join('\n')).toContain('[redacted]');
  });
});

describe('operations routes', () => {
  it('reports readiness with the database check', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.checks).toEqual([{ name: 'database', ready: true, detail: t.database.engine }]);
  });

  it('serves Prometheus metrics with request counts by route pattern and pool figures', async () => {
    await t.app.inject({ method: 'GET', url: '/healthz' });
    const operator = await createOperator(t);
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: key(operator.apiKey) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/healthz",status_code="200"\} \d+/);
    expect(res.body).toContain('http_request_duration_seconds_bucket');
    expect(res.body).toMatch(/db_pool_connections \d+/);
  });
});
