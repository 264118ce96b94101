import type { Kysely } from 'kysely';
import { SealedValueError } from '../../crypto/errors.js';
import type { Database } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import { IDENTIFIER_LABELS, isIdentifierLabel } from '../../identifiers/normalize.js';
import type { SealedIdentifier, SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { recordAudit } from '../audit/audit.repository.js';
import { isUuid } from '../ids.js';
import type { ReasonSealer } from '../reports/sealed-reason.js';
import { countMatches, listMatches, type MatchEventType } from './watchlist-matches.repository.js';
import { openWatchlistRef, watchlistRefContext } from './watchlist-ref.js';
import { countEntries, deleteEntry, insertEntries, listEntries } from './watchlists.repository.js';

export const MAX_WATCHLIST_BATCH = 1000;
export const MAX_WATCHLIST_PAGE = 100;

export interface WatchlistItemInput {
  label: string;
  value: string;
  ref?: string | undefined;
}

export type WatchlistItemResult = { id: string } | { error: { code: string; field: string; message: string } };

export interface WatchlistEntryView {
  id: string;
  label: string;
  value: string;
  ref: string | null;
  /** Present (true) when the value did not open: `value` is then its sealed token. */
  unreadable?: true;
  createdAt: string;
}

/** Who reads the matches, for the audit trail. */
interface MatchesReader {
  companyId: string;
  keyId: string | null;
  userId: string | null;
  requestId: string;
}

/** An event about one of the company's entries, as the desk lists it (the webhook's `data`, with the value). */
interface WatchlistMatchView {
  id: string;
  type: MatchEventType;
  createdAt: string;
  watchlistEntry: {
    id: string;
    label: string;
    /** Null once the company stopped watching it (the value left with the entry), or when it does not open. */
    value: string | null;
    ref: string | null;
    /** Still on the watchlist (a null value is then one that did not open). */
    watching: boolean;
  };
  report: { id: string; kind: 'report' | 'public_report'; fraudType: string; reportingCompany: string | null };
}

/**
 * A company's watchlist: identifiers of its own customers, stored like report identifiers (the
 * same normaliser, a blind index to match on, the value sealed and readable only by the company).
 */
export function createWatchlistsService(deps: {
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  sealer: Pick<ReasonSealer, 'seal' | 'open'>;
  /** A value that does not open is served as null in the matches (one bad row never fails the page) and told here. */
  onUnreadable?: (error: SealedValueError) => void;
}) {
  const { db, identifiers, sealer } = deps;

  /**
   * What `open` gives, or `fallback` when the token does not open: told to the operators with the
   * entry's row id (the keyring knows only the record, here the company), so they can find the row.
   */
  function tolerate<T>(entryId: string, open: () => T, fallback: T): { value: T; failed: boolean } {
    try {
      return { value: open(), failed: false };
    } catch (error) {
      if (!(error instanceof SealedValueError)) throw error;
      const told = new SealedValueError(error.reason, error.message, { ...error.where, rowId: entryId });
      told.stack = error.stack;
      deps.onUnreadable?.(told);
      return { value: fallback, failed: true };
    }
  }

  /** A watched entry's value and reference, opened; null both when a token does not open. */
  function openEntry(
    companyId: string,
    entryId: string,
    label: string,
    row: { value_token: string | null; ref: string | null; ref_token: string | null },
  ): { value: string | null; ref: string | null } {
    return tolerate<{ value: string | null; ref: string | null }>(
      entryId,
      () => ({
        value: identifiers.open(row.value_token as string, { companyId, recordId: companyId, label, rowId: entryId }),
        ref: openWatchlistRef(sealer, { id: entryId, company_id: companyId, ref: row.ref, ref_token: row.ref_token }),
      }),
      { value: null, ref: null },
    ).value;
  }

  /**
   * A listed entry's value and reference. A value that does not open is served marked `unreadable`,
   * as the sealed token (as decode serves one), and a reference that does not open as null: the page
   * and the other entries stay usable, and the company can still stop watching it by its id. A 500
   * for the whole list hid every entry.
   */
  function openListed(
    companyId: string,
    row: { id: string; label: string; value_token: string; ref: string | null; ref_token: string | null },
  ): Pick<WatchlistEntryView, 'value' | 'ref' | 'unreadable'> {
    const context = { companyId, recordId: companyId, label: row.label, rowId: row.id };
    const value = tolerate(row.id, () => identifiers.open(row.value_token, context), row.value_token);
    const ref = tolerate(row.id, () => openWatchlistRef(sealer, { ...row, company_id: companyId }), null);
    return { value: value.value, ref: ref.value, ...(value.failed ? { unreadable: true as const } : {}) };
  }

  /**
   * Normalises and seals one item, or says why it cannot be watched. The value is sealed to the
   * company (as its record) and the entry's own row id, so a token moved to another row fails to open.
   */
  function sealItem(companyId: string, item: WatchlistItemInput): SealedIdentifier | { error: FieldError } {
    if (!isIdentifierLabel(item.label)) {
      return { error: { field: 'label', message: `must be one of: ${IDENTIFIER_LABELS.join(', ')}` } };
    }
    const errors: FieldError[] = [];
    const [sealed] = identifiers.seal([{ label: item.label, value: item.value }], { companyId, recordId: companyId }, errors);
    if (!sealed) return { error: { field: 'value', message: errors[0]?.message ?? 'is not valid' } };
    return sealed;
  }

  return {
    /** Adds 1 to 1,000 items; each result says `{ id }` or `{ error }`, in the order given. */
    async add(
      companyId: string,
      items: readonly WatchlistItemInput[],
      conn: Kysely<Database> = db,
    ): Promise<WatchlistItemResult[]> {
      const results: WatchlistItemResult[] = [];
      const rows: Array<SealedIdentifier['row'] & { ref_token: string | null; position: number }> = [];
      const seen = new Map<string, number>();
      items.forEach((item, i) => {
        const sealed = sealItem(companyId, item);
        if ('error' in sealed) {
          const { field, message } = sealed.error;
          results[i] = { error: { code: 'VALIDATION_FAILED', field: `items/${i}/${field}`, message } };
          return;
        }
        const key = `${sealed.row.label}\u0000${sealed.row.blind_index.toString('hex')}`;
        const first = seen.get(key);
        if (first !== undefined) {
          results[i] = {
            error: { code: 'DUPLICATE', field: `items/${i}/value`, message: `is the same identifier as items/${first}` },
          };
          return;
        }
        seen.set(key, i);
        const ref = item.ref?.trim();
        const refToken = ref ? sealer.seal(ref, watchlistRefContext(companyId, sealed.row.id)) : null;
        rows.push({ ...sealed.row, ref_token: refToken, position: i });
      });
      if (rows.length > 0) {
        const stored = new Set(
          await insertEntries(
            conn,
            rows.map(({ position: _position, ...row }) => row),
          ),
        );
        for (const row of rows) {
          results[row.position] = stored.has(row.id)
            ? { id: row.id }
            : { error: { code: 'DUPLICATE', field: `items/${row.position}/value`, message: 'is already on the watchlist' } };
        }
      }
      return results;
    },

    async list(companyId: string, query: { page: number; limit: number; label?: string | undefined }) {
      const [rows, total] = await Promise.all([
        listEntries(db, companyId, { label: query.label, limit: query.limit, offset: (query.page - 1) * query.limit }),
        countEntries(db, companyId, query.label),
      ]);
      const data: WatchlistEntryView[] = rows.map((row) => ({
        id: row.id,
        label: row.label,
        ...openListed(companyId, row),
        createdAt: row.created_at.toISOString(),
      }));
      return { data, meta: { total, page: query.page, limit: query.limit } };
    },

    count: (companyId: string, label?: string): Promise<number> => countEntries(db, companyId, label),

    /**
     * What happened to the company's watched customers, newest first: each report that named one
     * (`watchlist.match`), and each such report that left the list or came back. The same events
     * its webhooks carry, so a member without a receiver still learns of them in the desk.
     */
    async matches(reader: MatchesReader, query: { page: number; limit: number }) {
      const { companyId } = reader;
      const [rows, total] = await Promise.all([
        listMatches(db, companyId, { limit: query.limit, offset: (query.page - 1) * query.limit }),
        countMatches(db, companyId),
      ]);
      const data: WatchlistMatchView[] = rows.map((row) => {
        const entry = row.entry_id !== null && row.entry_company_id === companyId && row.value_token !== null ? row : null;
        const label = entry?.entry_label ?? row.payload.watchlistEntry.label;
        const opened = entry ? openEntry(companyId, entry.entry_id as string, label, entry) : { value: null, ref: null };
        return {
          id: row.id,
          type: row.type,
          createdAt: row.created_at.toISOString(),
          watchlistEntry: { id: row.payload.watchlistEntry.id, label, ...opened, watching: entry !== null },
          report: row.payload.report,
        };
      });
      // The clear values of customers named in reports, read: in the trail like a search.
      await recordAudit(db, { ...reader, action: 'watchlist_matches_read', resultCount: data.length });
      return { data, meta: { total, page: query.page, limit: query.limit } };
    },

    /** Another company's entry is the same 404 as a random id. */
    async remove(companyId: string, id: string): Promise<void> {
      const removed = isUuid(id) && (await deleteEntry(db, companyId, id.toLowerCase()));
      if (!removed) throw AppError.notFound('Watchlist entry not found');
    },
  };
}

export type WatchlistsService = ReturnType<typeof createWatchlistsService>;
