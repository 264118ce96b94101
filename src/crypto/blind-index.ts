import { createHmac } from 'node:crypto';
import { IDENTIFIER_LABELS, type IdentifierLabel } from '../identifiers/labels.js';
import type { NormalizedOk } from '../identifiers/result.js';
import type { KeySource } from './root-key.js';

/**
 * Stored beside every index value. Bump it when a normaliser changes what it accepts or produces,
 * so the rows indexed under the old rules can be found and re-indexed.
 */
export const BLIND_INDEX_VERSION = 1;

/** The identifier labels plus `account_nuban`, the bare-NUBAN index of every account. */
export const INDEX_LABELS = [...IDENTIFIER_LABELS, 'account_nuban'] as const;
export type IndexLabel = (typeof INDEX_LABELS)[number];

/** HMAC-SHA-256 of a normalised value under its label's key: 32 bytes. */
export type BlindIndex = (label: IndexLabel, indexValue: string) => Buffer;

export function createBlindIndex(keys: KeySource): BlindIndex {
  // Each label has its own key, so the same 11 digits as a BVN and as a NIN index differently.
  const labelKeys = new Map<string, Buffer>(INDEX_LABELS.map((label) => [label, keys.indexKey(label)]));
  return (label, indexValue) => {
    const key = labelKeys.get(label);
    if (key === undefined) throw new Error(`No blind-index key for label ${label}`);
    return createHmac('sha256', key).update(indexValue, 'utf8').digest();
  };
}

export interface IndexEntry {
  label: IndexLabel;
  digest: Buffer;
  version: number;
}

/** The index rows to store for one identifier: accounts get a second, bank-less NUBAN entry. */
export function indexEntriesToStore(blindIndex: BlindIndex, label: IdentifierLabel, normalized: NormalizedOk): IndexEntry[] {
  const entries: IndexEntry[] = [{ label, digest: blindIndex(label, normalized.indexValue), version: BLIND_INDEX_VERSION }];
  if (label === 'account' && normalized.nuban !== undefined) {
    entries.push({ label: 'account_nuban', digest: blindIndex('account_nuban', normalized.nuban), version: BLIND_INDEX_VERSION });
  }
  return entries;
}

/** The one index entry a search looks up: a bare account number searches the NUBAN index. */
export function indexEntryToSearch(blindIndex: BlindIndex, label: IdentifierLabel, normalized: NormalizedOk): IndexEntry {
  if (label === 'account' && normalized.bankSlug === undefined && normalized.nuban !== undefined) {
    return { label: 'account_nuban', digest: blindIndex('account_nuban', normalized.nuban), version: BLIND_INDEX_VERSION };
  }
  return { label, digest: blindIndex(label, normalized.indexValue), version: BLIND_INDEX_VERSION };
}
