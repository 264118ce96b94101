import { type TUnsafe, Type } from 'typebox';

/** A string enum as `{ type: 'string', enum }`: one clear validation error instead of anyOf noise. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options }) as TUnsafe<T[number]>;
}

export const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const DateTime = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });
