import { createHmac } from 'node:crypto';
import { IDENTIFIER_LABELS, type IdentifierLabel } from '../identifiers/labels.js';
import type { NormalizedOk } from '../identifiers/result.js';
import type { IndexKey } from './key-store.js';

/**
 * Stored beside every index value. Bump it when a normaliser changes what it accepts or produces,
 * so the rows indexed under the old rules can be found and re-indexed.
 */
export const BLIND_INDEX_VERSION = 1;
/**
 * Account names: version 2 folds look-alike letters and drops invisible code points
 * (src/identifiers/confusables.ts); rows of version 1 are re-indexed at start-up (reindex-names.ts).
 */
export const NAME_INDEX_VERSION = 2;

/** The index version rows of a label are written with today. */
export function indexVersionOf(label: IndexLabel): number {
  return label === 'account_name' ? NAME_INDEX_VERSION : BLIND_INDEX_VERSION;
}

/** The identifier labels plus `account_nuban`, the bare-NUBAN index of every account. */
export const INDEX_LABELS = [...IDENTIFIER_LABELS, 'account_nuban'] as const;
export type IndexLabel = (typeof INDEX_LABELS)[number];

/**
 * HMAC-SHA-256 of a normalised value under its label's key: 32 bytes. Each label's key is
 * versioned (`crypto reindex`): calling the index gives the digest under the newest version, the
 * one rows are written with; `all` gives one digest per live version, what a search looks up while
 * a reindex moves rows from the old version to the new.
 */
export interface BlindIndex {
  (label: IndexLabel, indexValue: string): Buffer;
  /** The version rows are written with. */
  version(label: IndexLabel): number;
  /** The digest under every live version of the label's key, newest first. */
  all(label: IndexLabel, indexValue: string): Buffer[];
}

export function createBlindIndex(keys: ReadonlyMap<string, readonly IndexKey[]>): BlindIndex {
  // Each label has its own key, so the same 11 digits as a BVN and as a NIN index differently.
  const versionsOf = (label: IndexLabel): readonly IndexKey[] => {
    const versions = keys.get(label);
    if (versions === undefined || versions.length === 0) throw new Error(`No blind-index key for label ${label}`);
    return versions;
  };
  const hmac = (key: Buffer, value: string) => createHmac('sha256', key).update(value, 'utf8').digest();
  const index = (label: IndexLabel, indexValue: string) => hmac((versionsOf(label).at(-1) as IndexKey).key, indexValue);
  index.version = (label: IndexLabel) => (versionsOf(label).at(-1) as IndexKey).version;
  index.all = (label: IndexLabel, indexValue: string) =>
    versionsOf(label)
      .map((v) => hmac(v.key, indexValue))
      .reverse();
  return index;
}

/** One key per label at version 1: a database from before versioned index keys, and tests. */
export function singleVersionKeys(indexKey: (label: IndexLabel) => Buffer): Map<string, IndexKey[]> {
  return new Map(INDEX_LABELS.map((label) => [label, [{ version: 1, key: indexKey(label) }]]));
}

export interface IndexEntry {
  label: IndexLabel;
  digest: Buffer;
  version: number;
  /** The index key's version (`report_identifiers.index_key_version`). */
  keyVersion: number;
}

/** The index rows to store for one identifier: accounts get a second, bank-less NUBAN entry. */
export function indexEntriesToStore(blindIndex: BlindIndex, label: IdentifierLabel, normalized: NormalizedOk): IndexEntry[] {
  const entry = (indexLabel: IndexLabel, value: string): IndexEntry => ({
    label: indexLabel,
    digest: blindIndex(indexLabel, value),
    version: indexVersionOf(indexLabel),
    keyVersion: blindIndex.version(indexLabel),
  });
  const entries: IndexEntry[] = [entry(label, normalized.indexValue)];
  if (label === 'account' && normalized.nuban !== undefined) entries.push(entry('account_nuban', normalized.nuban));
  return entries;
}

/** Where a search looks: one label's index, under every live key version. */
export interface SearchEntry {
  label: IndexLabel;
  digests: Buffer[];
}

/** The index entries a search looks up: a bare account number searches the NUBAN index. */
export function indexEntryToSearch(blindIndex: BlindIndex, label: IdentifierLabel, normalized: NormalizedOk): SearchEntry {
  if (label === 'account' && normalized.bankSlug === undefined && normalized.nuban !== undefined) {
    return { label: 'account_nuban', digests: blindIndex.all('account_nuban', normalized.nuban) };
  }
  return { label, digests: blindIndex.all(label, normalized.indexValue) };
}
