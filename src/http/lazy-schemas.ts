import { setImmediate as nextTurn } from 'node:timers/promises';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';

type SerializerFactory = SerializerSelector.SerializerFactory;
type Serializer = SerializerSelector.Serializer;
type Validator = ReturnType<FastifySchemaCompiler<unknown>> & { errors?: unknown };

/** Fastify's own serializer compiler (fast-json-stringify), which the lazy one wraps. */
const defaultSerializers: SerializerFactory = SerializerSelector();

export interface SchemaCompilation {
  /** For `app.setValidatorCompiler`: each validator is compiled on its first request. */
  validatorCompiler: FastifySchemaCompiler<unknown>;
  /** For Fastify's `schemaController.compilersFactory`: each response serializer is compiled on its first answer. */
  buildSerializer: SerializerFactory;
  /**
   * Compiles every schema no request has needed yet, one at a time with a turn of the event loop
   * between them, so requests are answered meanwhile. Resolves with how many it compiled; a schema
   * that cannot compile rejects it, naming the route.
   */
  compileRemaining(): Promise<number>;
}

/**
 * Route schemas compiled when first needed, instead of all before the service listens (decision 0107).
 *
 * Fastify compiles every route's validators (ajv) and response serializers (fast-json-stringify)
 * while it gets ready, HEAD routes included: half a second of the two a restart took on the bench
 * machine before the service answered, and in every test file that builds the app. Here each is
 * compiled on the first request that needs it, and the serving process compiles the rest just
 * after it starts listening (server.ts), so that steady traffic never pays for it and a schema
 * that cannot compile is still found at start-up, in the log, and by the test that compiles them all.
 */
export function lazySchemaCompilation(compileValidator: FastifySchemaCompiler<unknown>): SchemaCompilation {
  const pending = new Map<() => unknown, string>();

  /** `build` once, at the first call of `compiled` or by compileRemaining, whichever comes first. */
  function once<T>(route: string, build: () => T): () => T {
    let built: T | undefined;
    const compiled = () => {
      if (built === undefined) {
        built = build();
        pending.delete(compiled);
      }
      return built;
    };
    pending.set(compiled, route);
    return compiled;
  }

  return {
    validatorCompiler(definition) {
      const compiled = once(`${definition.method} ${definition.url} (${definition.httpPart})`, () =>
        compileValidator(definition),
      );
      const validate = ((data: unknown) => {
        const validator = compiled() as Validator;
        const result = validator(data);
        // Fastify reads a failed validation's reasons from the function it was given.
        validate.errors = validator.errors;
        return result;
      }) as Validator;
      return validate;
    },
    buildSerializer(externalSchemas, options) {
      const compile = defaultSerializers(externalSchemas, options);
      return (definition) => {
        const compiled = once(`${definition.method} ${definition.url} (${definition.httpStatus})`, () => compile(definition));
        return ((document: unknown) => compiled()(document)) as Serializer;
      };
    },
    async compileRemaining() {
      let count = 0;
      for (const [compiled, route] of [...pending]) {
        if (!pending.has(compiled)) continue;
        try {
          compiled();
        } catch (error) {
          throw new Error(`the schema of ${route} does not compile: ${(error as Error).message}`);
        }
        count += 1;
        await nextTurn();
      }
      return count;
    },
  };
}
