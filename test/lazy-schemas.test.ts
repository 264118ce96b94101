import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazySchemaCompilation } from '../src/http/lazy-schemas.js';
import { validatorCompiler } from '../src/http/validation.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

describe('route schemas compiled on first use', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('every route’s schemas compile (what the serving process does once listening)', async () => {
    // Nothing compiled them yet: the app is ready without them.
    const compiled = await t.app.compileRemainingSchemas();
    // At least a validator or a serializer for every route (HEAD routes have their own serializers).
    expect(compiled).toBeGreaterThan(t.app.routeList.length);
    expect(await t.app.compileRemainingSchemas()).toBe(0);
  });
});

describe('lazySchemaCompilation', () => {
  function appWith(schema: object) {
    const schemas = lazySchemaCompilation(validatorCompiler);
    const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: schemas.buildSerializer } } });
    app.setValidatorCompiler(schemas.validatorCompiler);
    app.post(
      '/things',
      { schema: { body: schema, response: { 200: { type: 'object', properties: { id: { type: 'integer' } } } } } },
      async (request) => ({
        id: (request.body as { id: number }).id,
        extra: 'left out by the serializer',
      }),
    );
    return { app, schemas };
  }

  it('validates, names what failed, and serializes, each compiled at its first request', async () => {
    const { app, schemas } = appWith({ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } });
    await app.ready();
    const refused = await app.inject({ method: 'POST', url: '/things', payload: { id: 'seven' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('body/id must be integer');
    const unstorable = await app.inject({ method: 'POST', url: '/things', payload: { id: 1, note: 'a\u0000b' } });
    expect(unstorable.json().message).toBe('body/note must not contain the NUL character (U+0000)');
    const ok = await app.inject({ method: 'POST', url: '/things', payload: { id: 7 } });
    expect(ok.json()).toEqual({ id: 7 });
    // The body validator and the 200 serializer are compiled; nothing else was there to compile.
    expect(await schemas.compileRemaining()).toBe(0);
    await app.close();
  });

  it('lets the app start with a schema that cannot compile, and compileRemaining names its route', async () => {
    const { app, schemas } = appWith({ type: 'object', properties: { id: { type: 'no such type' } } });
    await app.ready();
    await expect(schemas.compileRemaining()).rejects.toThrow(/^the schema of POST \/things \(body\) does not compile: /);
    await app.close();
  });
});
