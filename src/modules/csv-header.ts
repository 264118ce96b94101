// The header line of a customer or watchlist file: which column holds the label, the value and the
// reference. Files from spreadsheets put them in any order and case, so they are found by name.

/** Where the first line's columns are, by their names. */
export interface Columns {
  label: number;
  value: number;
  ref: number | undefined;
}

/** What a file without a proper first line is told, before what to do next. */
export const HEADER_RULE =
  'The first line must name the columns, and only these: label, value and, if you use it, ref (in any order)';

/**
 * The columns the header names (any order, any case, a byte-order mark dropped), or undefined
 * when it is not a header: a name missing, repeated or unknown. A file without one would have its
 * first row read as the header and never used.
 */
export function headerColumns(fields: ReadonlyArray<string | undefined>): Columns | undefined {
  const names = fields.map((field) =>
    (field ?? '')
      .replace(/^\uFEFF/, '')
      .trim()
      .toLowerCase(),
  );
  const known = names.filter(Boolean);
  if (known.some((name) => name !== 'label' && name !== 'value' && name !== 'ref')) return undefined;
  if (new Set(known).size !== known.length || !known.includes('label') || !known.includes('value')) return undefined;
  const ref = names.indexOf('ref');
  return { label: names.indexOf('label'), value: names.indexOf('value'), ref: ref === -1 ? undefined : ref };
}
