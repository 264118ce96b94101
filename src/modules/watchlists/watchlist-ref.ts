import type { SealContext } from '../../crypto/keyring.js';
import { openSealedOrClear } from '../../crypto/sealed-or-clear.js';
import type { ReasonSealer } from '../reports/sealed-reason.js';

/**
 * A watchlist entry's `ref` is the member's own reference for its customer, and members put account
 * and customer numbers there: it is sealed at rest (decision 0135), to the company and the entry.
 */
export const WATCHLIST_REF_LABEL = 'watchlist.ref';

export const watchlistRefContext = (companyId: string, entryId: string): SealContext => ({
  companyId,
  recordId: entryId,
  label: WATCHLIST_REF_LABEL,
});

/** The columns a stored ref is read from: a row from before migration 0035 has it in clear until start-up seals it. */
export interface StoredRef {
  id: string;
  company_id: string;
  ref: string | null;
  ref_token: string | null;
}

export function openWatchlistRef(sealer: Pick<ReasonSealer, 'open'>, row: StoredRef): string | null {
  return openSealedOrClear(sealer, row.ref_token, row.ref, () => watchlistRefContext(row.company_id, row.id));
}
