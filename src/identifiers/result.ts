/** What a normaliser answers. Messages never repeat the clear value (they end up in responses and logs). */
export type Normalized =
  | {
      ok: true;
      /** The normalised form, shown back to the submitter (API.md §3). */
      value: string;
      /** What the blind index hashes; equal to `value` except where the index ignores more (word order). */
      indexValue: string;
      /** Accounts only: the bare 10-digit NUBAN, indexed separately so a search without a bank finds every bank. */
      nuban?: string;
      /** Accounts only: the bank slug, absent for a bare-NUBAN search. */
      bankSlug?: string;
    }
  | { ok: false; message: string };

export type NormalizedOk = Extract<Normalized, { ok: true }>;

export function accepted(value: string, indexValue: string = value): Normalized {
  return { ok: true, value, indexValue };
}

export function rejected(message: string): Normalized {
  return { ok: false, message };
}

/** Longest raw input looked at: anything longer is junk, and bounding it bounds the work. */
export const MAX_RAW_LENGTH = 512;
