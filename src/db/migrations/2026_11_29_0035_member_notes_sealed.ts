import { type Kysely, sql } from 'kysely';

/**
 * The last two free texts stored in clear are sealed like the others (decision 0135): a watchlist
 * entry's `ref` (a member's own reference for its customer, often an account or customer number) and
 * the operators' reason for a safelist entry (it describes a bank's own number). Each gets a token
 * column; rows written before are sealed at the next start by the process that migrates (a migration
 * has no key), found through the partial indexes without reading the tables.
 *
 * Webhook events no longer keep the entry's `ref` in their payload: the delivery worker reads it from
 * the entry when it sends, so events waiting to be delivered lose their copy here.
 *
 * Not to be undone once the service has run: the down migration would drop the only copy of every
 * text written since, so it refuses while any is there.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table watchlist_entries add column ref_token text`.execute(db);
  await sql`create index watchlist_entries_ref_to_seal_idx on watchlist_entries (id) where ref is not null`.execute(db);
  await sql`alter table safelist add column reason_token text, alter column reason drop not null`.execute(db);
  await sql`create index safelist_reason_to_seal_idx on safelist (id) where reason is not null`.execute(db);
  await sql`update webhook_events set payload = payload #- '{watchlistEntry,ref}'
    where payload->'watchlistEntry' ? 'ref'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ sealed: boolean }>`select
    exists (select 1 from watchlist_entries where ref_token is not null)
    or exists (select 1 from safelist where reason_token is not null) as sealed`.execute(db);
  if (rows[0]?.sealed) throw new Error('Texts are stored sealed since migration 0035; undoing it would lose them');
  await sql`update webhook_events e set payload = jsonb_set(e.payload, '{watchlistEntry,ref}', coalesce(to_jsonb(w.ref), 'null'))
    from watchlist_entries w where w.id = e.watchlist_entry_id and e.payload ? 'watchlistEntry'`.execute(db);
  await sql`update webhook_events set payload = jsonb_set(payload, '{watchlistEntry,ref}', 'null')
    where payload ? 'watchlistEntry' and not payload->'watchlistEntry' ? 'ref'`.execute(db);
  await sql`drop index safelist_reason_to_seal_idx`.execute(db);
  await sql`alter table safelist drop column reason_token, alter column reason set not null`.execute(db);
  await sql`drop index watchlist_entries_ref_to_seal_idx`.execute(db);
  await sql`alter table watchlist_entries drop column ref_token`.execute(db);
}
