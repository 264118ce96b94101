import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

/** Bodies are JSON and keep their types: "true" is not a boolean, 12 is not a string. */
const bodyAjv = new Ajv({ ...common, coerceTypes: false });
/** Query strings and path parameters are text by nature, so they are coerced to the schema. */
const textAjv = new Ajv({ ...common, coerceTypes: 'array' });
addFormats(bodyAjv);
addFormats(textAjv);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
