import { randomUUID } from 'node:crypto';
import { BLIND_INDEX_VERSION, indexEntriesToStore, indexEntryToSearch } from '../crypto/blind-index.js';
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
  };
}

/** Where a search looks: the exact (label, index) pair, or the bare-NUBAN index across banks. */
export interface SearchKey {
  label: IdentifierLabel;
  column: 'blind_index' | 'nuban_index';
  index: Buffer;
}

/**
 * Normalise, seal and index identifiers, and turn a search value into its index: the one place
 * where the same normalisation serves both, so a value found on create is found on search.
 */
export function createSealedIdentifiers(deps: { crypto: Crypto; banks: BankDirectory }) {
  const { crypto, banks } = deps;

  return {
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
        const entries = indexEntriesToStore(crypto.blindIndex, input.label, normalized);
        const exact = entries.find((e) => e.label === input.label);
        const nuban = entries.find((e) => e.label === 'account_nuban');
        if (!exact) throw new Error(`no index entry for ${input.label}`);
        sealed.push({
          label: input.label,
          value: normalized.value,
          row: {
            id: randomUUID(),
            company_id: context.companyId,
            label: input.label,
            value_token: crypto.keyring.seal(normalized.value, { ...context, label: input.label }),
            blind_index: exact.digest,
            nuban_index: nuban?.digest ?? null,
            index_version: BLIND_INDEX_VERSION,
          },
        });
      });
      return sealed;
    },

    /** The index a search value is looked up in, or why the value cannot be searched for. */
    searchKey(label: IdentifierLabel, raw: string): { ok: true; key: SearchKey } | { ok: false; message: string } {
      const normalized = normalizeIdentifier(label, raw, { banks, purpose: 'search' });
      if (!normalized.ok) return normalized;
      const entry = indexEntryToSearch(crypto.blindIndex, label, normalized);
      const column = entry.label === 'account_nuban' ? 'nuban_index' : 'blind_index';
      return { ok: true, key: { label, column, index: entry.digest } };
    },

    /** The clear value of a stored token (for its own company's decode). */
    open(token: string, context: SealContext): string {
      return crypto.keyring.open(token, context);
    },
  };
}

export type SealedIdentifiers = ReturnType<typeof createSealedIdentifiers>;
