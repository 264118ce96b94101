import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
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

interface Visit {
  value: unknown;
  key: string;
  parent: Visit | undefined;
}

function pointerOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.push(at.key.replace(/~/g, '~0').replace(/\//g, '~1'));
  return keys
    .reverse()
    .map((key) => `/${key}`)
    .join('');
}

/** A lone UTF-16 surrogate: no character at all, which PostgreSQL's json refuses and its text would turn into U+FFFD. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `text` cannot be stored as it is, or undefined when it can. */
export function textProblem(text: string): string | undefined {
  // PostgreSQL's text cannot hold the NUL character, and no field of ours means one.
  if (text.includes('\u0000'))
    return 'contains an invisible character (NUL, U+0000), often left by copying from another program: type it again';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (a lone surrogate is not a character)';
  return undefined;
}

/**
 * Where text that cannot be stored is in `value` (a string, or a key or string anywhere inside an
 * object or array), as a JSON pointer with the reason; undefined when there is none. It is refused
 * at the door, naming the field, rather than by the database with a 500.
 * A loop, not recursion: a body may nest thousands deep before the schema has refused it.
 */
export function findUnstorableText(value: unknown): { pointer: string; message: string } | undefined {
  const pending: Visit[] = [{ value, key: '', parent: undefined }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    if (typeof visit.value === 'string') {
      const message = textProblem(visit.value);
      if (message) return { pointer: pointerOf(visit), message };
    } else if (visit.value !== null && typeof visit.value === 'object') {
      for (const [key, item] of Object.entries(visit.value)) {
        const child = { value: item, key, parent: visit };
        const message = textProblem(key);
        if (message) return { pointer: pointerOf(child), message };
        pending.push(child);
      }
    }
  }
  return undefined;
}

/** A number as a person writes one in a query string or a path. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The query or path parameters a schema takes as numbers. Ajv coerces text to a number as
 * JavaScript's `Number` does, so `0x10`, `0b11`, `1e1` and ` 1` would be read as 16, 3, 10 and 1:
 * such a parameter must be written in decimal digits.
 */
function numericParameters(schema: object): Array<[name: string, type: string]> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties).flatMap(([name, property]) =>
    property.type === 'integer' || property.type === 'number' ? [[name, property.type] as [string, string]] : [],
  );
}

/** Every body, query string and path: first only storable text anywhere, then the route's schema. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
  const numeric = httpPart === 'body' ? [] : numericParameters(schema as object);
  const checked = ((data: unknown) => {
    const unstorable = findUnstorableText(data);
    if (unstorable) {
      checked.errors = [
        { instancePath: unstorable.pointer, keyword: 'text', message: unstorable.message, params: {}, schemaPath: '' },
      ];
      return false;
    }
    for (const [name, type] of numeric) {
      const raw = (data as Record<string, unknown> | null)?.[name];
      if (typeof raw === 'string' && !DECIMAL.test(raw)) {
        checked.errors = [{ instancePath: `/${name}`, keyword: 'type', message: '', params: { type }, schemaPath: '' }];
        return false;
      }
    }
    const valid = validate(data);
    checked.errors = validate.errors;
    return valid;
  }) as ValidateFunction & { errors?: ErrorObject[] | null };
  return checked as ReturnType<FastifySchemaCompiler<unknown>>;
};

/**
 * For a route whose handler checks the parts of its body one by one (the batch search: one bad
 * item is that item's error, never the whole batch's): the body is validated against `outline`
 * only, without the scan for unstorable text, which the handler makes per part (`textProblem`).
 * The route's documented schema stays the full one. Query and path as every route.
 */
export function bodyOutlineOnly(outline: object): FastifySchemaCompiler<unknown> {
  const validate = bodyAjv.compile(outline);
  return (route) => (route.httpPart === 'body' ? validate : validatorCompiler(route));
}
