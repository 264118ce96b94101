import { setImmediate as nextTurn } from 'node:timers/promises';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';

type SerializerFactory = SerializerSelector.SerializerFactory;
type Serializer = SerializerSelector.Serializer;
type Validator = ReturnType<FastifySchemaCompiler<unknown>> & { errors?: unknown };

/** Fastify's own serializer compiler (fast-json-stringify), which the lazy one wraps; the same copy Fastify uses (a test checks). */
const defaultSerializers: SerializerFactory = SerializerSelector();

export interface SchemaCompilation {
  /** For `app.setValidatorCompiler`: each validator is compiled on its first request. */
  validatorCompiler: FastifySchemaCompiler<unknown>;
  /**
   * For Fastify's `schemaController.compilersFactory`: each success serializer is compiled on its
   * first answer; error serializers at once (see lazySchemaCompilation).
   */
  buildSerializer: SerializerFactory;
  /** What is still to compile, by route and part ("GET /x (200)"). */
  pending(): string[];
  /**
   * Compiles every schema no request has needed yet, one at a time with a turn of the event loop
   * between them, so requests are answered meanwhile. Resolves with how many it compiled; rejects,
   * after trying them all, naming every route whose schema does not compile.
   */
  compileRemaining(): Promise<number>;
}

type Outcome<T> = { state: 'pending' } | { state: 'built'; value: T } | { state: 'failed'; error: unknown };

/**
 * Route schemas compiled when first needed, instead of all before the service listens (decision 0107).
 *
 * Fastify compiles every route's validators (ajv) and response serializers (fast-json-stringify)
 * while it gets ready, HEAD routes included: half a second of the two a restart took on the bench
 * machine before the service answered, and in every test file that builds the app. Here a
 * validator or a success serializer is compiled by the first request that needs it, and the
 * serving process compiles the rest just after it starts listening (server.ts), so that steady
 * traffic does not pay for it, and a schema that cannot compile is logged within a second of the
 * start. The test that compiles them all finds it before that.
 *
 * Error serializers are compiled at once, as Fastify would: when an error's serializer fails,
 * Fastify answers outside the envelope, with the compile message. They cost little, because one
 * schema object is compiled once per plugin context, and the 4xx and 5xx answers of every route
 * share the envelope's.
 */
export function lazySchemaCompilation(compileValidator: FastifySchemaCompiler<unknown>): SchemaCompilation {
  const pending = new Map<() => unknown, string>();

  /**
   * `build` once, at the first call of the returned function or by compileRemaining, whichever
   * comes first. A failure is kept too, so a broken route does not compile again at every request.
   */
  function once<T>(label: string, build: () => T): () => T {
    let outcome: Outcome<T> = { state: 'pending' };
    const compiled = () => {
      if (outcome.state === 'pending') {
        pending.delete(compiled);
        try {
          outcome = { state: 'built', value: build() };
        } catch (error) {
          outcome = { state: 'failed', error };
        }
      }
      if (outcome.state === 'failed')
        throw new Error(`the schema of ${label} does not compile: ${(outcome.error as Error).message}`, { cause: outcome.error });
      return outcome.value;
    };
    pending.set(compiled, label);
    return compiled;
  }

  return {
    validatorCompiler(definition) {
      const compiled = once(`${definition.method} ${definition.url} (${definition.httpPart})`, () =>
        compileValidator(definition),
      );
      const validate = ((...args: Parameters<Validator>) => {
        const validator = compiled() as Validator;
        const result = validator(...args);
        // Fastify reads a failed validation's reasons from the function it was given.
        validate.errors = validator.errors;
        return result;
      }) as Validator;
      return validate;
    },
    buildSerializer(externalSchemas, options) {
      const compile = defaultSerializers(externalSchemas, options);
      // fast-json-stringify's output depends only on the schema and this context's options.
      const bySchema = new WeakMap<object, Serializer>();
      const compileShared = (definition: SerializerSelector.RouteDefinition) => {
        const schema = definition.schema as object;
        const known = bySchema.get(schema);
        if (known) return known;
        const serializer = compile(definition);
        bySchema.set(schema, serializer);
        return serializer;
      };
      return (definition) => {
        if (!/^2/.test(definition.httpStatus)) return compileShared(definition);
        const contentType = (definition as { contentType?: string }).contentType;
        const label = `${definition.method} ${definition.url} (${definition.httpStatus}${contentType ? ` ${contentType}` : ''})`;
        const compiled = once(label, () => compileShared(definition));
        return ((document: unknown) => compiled()(document)) as Serializer;
      };
    },
    pending: () => [...pending.values()],
    async compileRemaining() {
      let count = 0;
      const failures: string[] = [];
      // Taken one at a time, so that entries added meanwhile are compiled too.
      for (let next = pending.keys().next(); !next.done; next = pending.keys().next()) {
        try {
          next.value();
          count += 1;
        } catch (error) {
          failures.push((error as Error).message);
        }
        await nextTurn();
      }
      if (failures.length > 0) throw new Error(failures.join('; '));
      return count;
    },
  };
}
