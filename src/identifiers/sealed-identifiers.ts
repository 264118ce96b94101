import { randomUUID } from 'node:crypto';
import { type IndexEntry, indexEntriesToStore, indexEntryToSearch } from '../crypto/blind-index.js';
import { SealedValueError } from '../crypto/errors.js';
import type { SealContext } from '../crypto/keyring.js';
import type { Crypto } from '../crypto/load-crypto.js';
import type { FieldError } from '../http/errors.js';
import { type BankDirectory, type IdentifierLabel, LABEL_NAMES, normalizeIdentifier } from './normalize.js';

export interface IdentifierInput {
  label: IdentifierLabel;
  value: string;
}

/** An identifier ready to store: its clear normalised value (for the submitter) and its row. */
export interface SealedIdentifier {
  label: IdentifierLabel;
  value: string;
  row: {
    id: string;
    company_id: string;
    label: IdentifierLabel;
    value_token: string;
    blind_index: Buffer;
    nuban_index: Buffer | null;
    index_version: number;
    index_key_version: number;
  };
}

/**
 * Where a search looks: the exact (label, index) pair, or the bare-NUBAN index across banks. While
 * `crypto reindex` runs there is one digest per live key version (newest first), and a row matches any.
 */
export interface SearchKey {
  label: IdentifierLabel;
  column: 'blind_index' | 'nuban_index';
  indexes: Buffer[];
}

/**
 * Normalise, seal and index identifiers, and turn a search value into its index: the one place
 * where the same normalisation serves both, so a value found on create is found on search.
 */
export function createSealedIdentifiers(deps: { crypto: Crypto; banks: BankDirectory }) {
  const { crypto, banks } = deps;

  /** Each identifier normalised for storing; a value that does not normalise, or repeats one before it, goes to `errors`. */
  function normalizeAll(inputs: readonly IdentifierInput[], errors: FieldError[], fieldPrefix: string) {
    const normalizedAll: Array<{
      input: IdentifierInput;
      normalized: Extract<ReturnType<typeof normalizeIdentifier>, { ok: true }>;
    }> = [];
    const seen = new Map<string, number>();
    inputs.forEach((input, i) => {
      const field = `${fieldPrefix}/${i}/value`;
      const normalized = normalizeIdentifier(input.label, input.value, { banks, purpose: 'store' });
      if (!normalized.ok) {
        errors.push({ field, message: normalized.message });
        return;
      }
      const duplicateKey = `${input.label}\u0000${normalized.indexValue}`;
      const first = seen.get(duplicateKey);
      if (first !== undefined) {
        errors.push({ field, message: `is the same ${LABEL_NAMES[input.label]} as ${fieldPrefix}/${first}/value` });
        return;
      }
      seen.set(duplicateKey, i);
      normalizedAll.push({ input, normalized });
    });
    return normalizedAll;
  }

  return {
    /** The errors `seal` would give, without sealing anything (a refused body's value checks). */
    check(inputs: readonly IdentifierInput[], errors: FieldError[], fieldPrefix = 'identifiers'): void {
      normalizeAll(inputs, errors, fieldPrefix);
    },

    /**
     * Seals each identifier for `context.recordId`. Problems are added to `errors` as
     * `<fieldPrefix>/<i>/value` so the caller reports them with its other field errors.
     */
    seal(
      inputs: readonly IdentifierInput[],
      context: { companyId: string; recordId: string },
      errors: FieldError[],
      fieldPrefix = 'identifiers',
    ): SealedIdentifier[] {
      const sealed: SealedIdentifier[] = [];
      for (const { input, normalized } of normalizeAll(inputs, errors, fieldPrefix)) {
        const entries = indexEntriesToStore(crypto.blindIndex, input.label, normalized);
        const exact = entries.find((e) => e.label === input.label);
        const nuban = entries.find((e) => e.label === 'account_nuban');
        if (!exact) throw new Error(`no index entry for ${input.label}`);
        const rowId = randomUUID();
        sealed.push({
          label: input.label,
          value: normalized.value,
          row: {
            id: rowId,
            company_id: context.companyId,
            label: input.label,
            value_token: crypto.keyring.seal(normalized.value, { ...context, label: input.label, rowId }),
            blind_index: exact.digest,
            nuban_index: nuban?.digest ?? null,
            index_version: exact.version,
            index_key_version: exact.keyVersion,
          },
        });
      }
      return sealed;
    },

    /**
     * The index columns of a stored (normalised) value under the newest key versions: what
     * `crypto reindex` writes. Undefined if the value no longer normalises (never for stored values).
     */
    indexesOf(
      label: IdentifierLabel,
      storedValue: string,
    ): Pick<SealedIdentifier['row'], 'blind_index' | 'nuban_index' | 'index_key_version'> | undefined {
      const normalized = normalizeIdentifier(label, storedValue, { banks, purpose: 'store' });
      if (!normalized.ok) return undefined;
      const entries = indexEntriesToStore(crypto.blindIndex, label, normalized);
      const exact = entries.find((e) => e.label === label) as IndexEntry;
      const nuban = entries.find((e) => e.label === 'account_nuban');
      return { blind_index: exact.digest, nuban_index: nuban?.digest ?? null, index_key_version: exact.keyVersion };
    },

    /** The index a search value is looked up in, or why the value cannot be searched for. */
    searchKey(label: IdentifierLabel, raw: string): { ok: true; key: SearchKey } | { ok: false; message: string } {
      const normalized = normalizeIdentifier(label, raw, { banks, purpose: 'search' });
      if (!normalized.ok) return normalized;
      const entry = indexEntryToSearch(crypto.blindIndex, label, normalized);
      const column = entry.label === 'account_nuban' ? 'nuban_index' : 'blind_index';
      return { ok: true, key: { label, column, indexes: entry.digests } };
    },

    /**
     * A list of stored identifiers with clear values; one whose token does not open keeps its
     * token, is marked `unreadable` and is reported to `onUnreadable` (to be logged), and the rest
     * are served.
     */
    openEach<T extends { id: string; label: string; value: string }>(
      items: readonly T[],
      context: { companyId: string; recordId: string },
      onUnreadable: (error: SealedValueError) => void,
    ): (T & { unreadable?: true })[] {
      return items.map((item) => {
        try {
          return { ...item, value: crypto.keyring.open(item.value, { ...context, label: item.label, rowId: item.id }) };
        } catch (error) {
          if (!(error instanceof SealedValueError)) throw error;
          onUnreadable(new SealedValueError(error.reason, error.message, { ...error.where, rowId: item.id }));
          return { ...item, unreadable: true as const };
        }
      });
    },

    /** The clear value of a stored token (for its own company's decode). */
    open(token: string, context: SealContext): string {
      return crypto.keyring.open(token, context);
    },
  };
}

export type SealedIdentifiers = ReturnType<typeof createSealedIdentifiers>;
