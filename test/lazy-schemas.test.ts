import { createRequire } from 'node:module';
import Fastify, { type FastifySchemaCompiler } from 'fastify';
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

  it('leaves validators and success serializers to the first request, compiles the error serializers at once, and every schema compiles', async () => {
    const pending = t.app.routeSchemas.pending();
    expect(pending).toEqual(
      expect.arrayContaining([
        'POST /api/v1/external/reports/search (body)',
        'POST /api/v1/external/reports/search (200)',
        'GET /api/v1/meta-data/banks (200)',
        'HEAD /api/v1/meta-data/banks (200)',
      ]),
    );
    // Errors are answered through these; a failure there would answer outside the envelope.
    expect(pending.filter((label) => / \([45]\d\d\)$/.test(label))).toEqual([]);
    // What the serving process does once listening.
    expect(await t.app.routeSchemas.compileRemaining()).toBe(pending.length);
    expect(t.app.routeSchemas.pending()).toEqual([]);
  });

  it('uses the serializer compiler Fastify itself uses, not a second copy', () => {
    const ours = createRequire(import.meta.url).resolve('@fastify/fast-json-stringify-compiler');
    const fastifys = createRequire(createRequire(import.meta.url).resolve('fastify')).resolve(
      '@fastify/fast-json-stringify-compiler',
    );
    expect(ours).toBe(fastifys);
  });
});

describe('lazySchemaCompilation', () => {
  function appWith(bodies: Record<string, object>) {
    let validatorsCompiled = 0;
    const counting: FastifySchemaCompiler<unknown> = (definition) => {
      validatorsCompiled += 1;
      return validatorCompiler(definition);
    };
    const schemas = lazySchemaCompilation(counting);
    const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: schemas.buildSerializer } } });
    app.setValidatorCompiler(schemas.validatorCompiler);
    for (const [url, body] of Object.entries(bodies))
      app.post(
        url,
        { schema: { body, response: { 200: { type: 'object', properties: { id: { type: 'integer' } } } } } },
        async (request) => ({ id: (request.body as { id: number }).id, extra: 'left out by the serializer' }),
      );
    return { app, schemas, validatorsCompiled: () => validatorsCompiled };
  }
  const integerId = { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } };
  const broken = { type: 'object', properties: { id: { type: 'no such type' } } };

  it('validates, names what failed, and serializes, each compiled once at its first request', async () => {
    const { app, schemas, validatorsCompiled } = appWith({ '/things': integerId });
    await app.ready();
    expect(schemas.pending()).toEqual(['POST /things (body)', 'POST /things (200)']);
    const refused = await app.inject({ method: 'POST', url: '/things', payload: { id: 'seven' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('body/id must be integer');
    const unstorable = await app.inject({ method: 'POST', url: '/things', payload: { id: 1, note: 'a\u0000b' } });
    expect(unstorable.json().message).toBe(
      'body/note contains an invisible character (NUL, U+0000), often left by copying from another program: type it again',
    );
    const ok = await app.inject({ method: 'POST', url: '/things', payload: { id: 7 } });
    expect(ok.json()).toEqual({ id: 7 });
    expect(validatorsCompiled()).toBe(1);
    expect(schemas.pending()).toEqual([]);
    expect(await schemas.compileRemaining()).toBe(0);
    await app.close();
  });

  it('starts with schemas that cannot compile; compileRemaining names every one, and a request there is a 500, compiled only once', async () => {
    const { app, schemas, validatorsCompiled } = appWith({ '/one': broken, '/two': broken, '/fine': integerId });
    await app.ready();
    const failure = await schemas.compileRemaining().then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failure).toMatch(
      /^the schema of POST \/one \(body\) does not compile: .+; the schema of POST \/two \(body\) does not compile: /,
    );
    // The routes after the broken ones were compiled all the same.
    expect(schemas.pending()).toEqual([]);
    const compiledBefore = validatorsCompiled();
    for (let n = 0; n < 2; n++)
      expect((await app.inject({ method: 'POST', url: '/one', payload: { id: 1 } })).statusCode).toBe(500);
    expect(validatorsCompiled()).toBe(compiledBefore);
    expect((await app.inject({ method: 'POST', url: '/fine', payload: { id: 1 } })).json()).toEqual({ id: 1 });
    await app.close();
  });
});
