import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import { IDENTIFIER_LABELS, isIdentifierLabel } from '../../identifiers/normalize.js';
import type { SealedIdentifier, SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import { isUuid } from '../ids.js';

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
  createdAt: string;
}

/**
 * A company's watchlist: identifiers of its own customers, stored like report identifiers (the
 * same normaliser, a blind index to match on, the value sealed and readable only by the company).
 */
export function createWatchlistsService(deps: { db: Kysely<Database>; identifiers: SealedIdentifiers }) {
  const { db, identifiers } = deps;

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
      const rows: Array<SealedIdentifier['row'] & { ref: string | null; position: number }> = [];
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
        rows.push({ ...sealed.row, ref: item.ref?.trim() || null, position: i });
      });
      if (rows.length > 0) {
        const inserted = await conn
          .insertInto('watchlist_entries')
          .values(rows.map(({ position: _position, ...row }) => row))
          .onConflict((oc) => oc.columns(['company_id', 'label', 'blind_index']).doNothing())
          .returning('id')
          .execute();
        const stored = new Set(inserted.map((r) => r.id));
        for (const row of rows) {
          results[row.position] = stored.has(row.id)
            ? { id: row.id }
            : { error: { code: 'DUPLICATE', field: `items/${row.position}/value`, message: 'is already on the watchlist' } };
        }
      }
      return results;
    },

    async list(companyId: string, query: { page: number; limit: number; label?: string | undefined }) {
      let base = db.selectFrom('watchlist_entries').where('company_id', '=', companyId);
      if (query.label) base = base.where('label', '=', query.label);
      const [rows, total] = await Promise.all([
        base
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id')
          .limit(query.limit)
          .offset((query.page - 1) * query.limit)
          .execute(),
        base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
      ]);
      const data: WatchlistEntryView[] = rows.map((row) => ({
        id: row.id,
        label: row.label,
        value: identifiers.open(row.value_token, { companyId, recordId: companyId, label: row.label, rowId: row.id }),
        ref: row.ref,
        createdAt: row.created_at.toISOString(),
      }));
      return { data, meta: { total: total.n, page: query.page, limit: query.limit } };
    },

    async count(companyId: string, label?: string): Promise<number> {
      let query = db.selectFrom('watchlist_entries').where('company_id', '=', companyId);
      if (label) query = query.where('label', '=', label);
      const row = await query.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
      return row.n;
    },

    /** Another company's entry is the same 404 as a random id. */
    async remove(companyId: string, id: string): Promise<void> {
      const removed = isUuid(id)
        ? await db
            .deleteFrom('watchlist_entries')
            .where('id', '=', id.toLowerCase())
            .where('company_id', '=', companyId)
            .executeTakeFirst()
        : undefined;
      if (!removed || removed.numDeletedRows === 0n) throw AppError.notFound('Watchlist entry not found');
    },
  };
}

export type WatchlistsService = ReturnType<typeof createWatchlistsService>;
