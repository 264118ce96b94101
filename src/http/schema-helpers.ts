import { type TSchema, Type } from 'typebox';

/** A string enum as one `enum` keyword: its validation error names the allowed values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A response field that may be null. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** An ISO-8601 date-time string (Dates are serialised to it). */
export function DateTime(description?: string) {
  return Type.String({ format: 'date-time', ...(description ? { description } : {}) });
}

/** A page number: past the end is an empty list; beyond a million it is a mistake (and an overflow). */
export const PageNumber = Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 });
