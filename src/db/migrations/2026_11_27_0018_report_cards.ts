import { type Kysely, sql } from 'kysely';

/**
 * Each report's entry in a search answer, kept as JSON text beside it (decision 0102). Building the
 * lists was most of what a search cost PostgreSQL: in groups of 16, the bench's mix cost 0.147 ms of
 * its CPU a search with the lists and 0.055 ms without them (`bench/grouped-statement.js`), for
 * text that changes only when its report, the report's identifiers or the reporting company's name
 * does. Triggers on those tables rebuild a report's card in the transaction that changes them, so
 * a search reads its own writes as before; `report_card` and `public_report_card` are the one
 * place the entry's shape is written, used by the triggers and, for a report without a card, by
 * the search itself.
 *
 * A company report's card is its entry without `dispute`, which the search adds (a dispute is
 * opened and closed without touching the report): the text of `json_build_object` without its
 * closing brace, so the search appends `, "dispute" : …}` (cutting the brace off in every search
 * counted the card's characters: 2 µs a card).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table report_cards (
    report_id uuid primary key references reports (id) on delete cascade,
    card text not null
  )`.execute(db);
  await sql`create table public_report_cards (
    public_report_id uuid primary key references public_reports (id) on delete cascade,
    card text not null
  )`.execute(db);

  await sql`create function report_card(report uuid) returns text language sql stable as $$
    select left(json_build_object(
      'id', p.id,
      'companyId', p.company_id,
      'userId', case when p.show_uploader_info then p.user_id end,
      'listingStatus', p.listing_status,
      'exitedListAt', to_char(p.exited_list_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'exitListReason', p.exit_list_reason,
      'fraudType', p.fraud_type,
      'fraudReason', p.fraud_reason_masked,
      'showUploaderInfo', p.show_uploader_info,
      'attachments', p.attachments,
      'status', p.status,
      'createdAt', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'updatedAt', to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'reportingCompany', json_build_object('businessName', c.business_name, 'id', c.id),
      'identifiers', (
        select coalesce(json_agg(json_build_object('id', i.id, 'label', i.label, 'value', i.value_token) order by i.position), '[]'::json)
        from report_identifiers i where i.report_id = p.id
      )
    )::text, -1)
    from reports p join companies c on c.id = p.company_id
    where p.id = report
  $$`.execute(db);

  await sql`create function public_report_card(report uuid) returns text language sql stable as $$
    select json_build_object(
      'id', p.id,
      'userId', null,
      'fraudReason', p.fraud_reason_masked,
      'fraudType', p.fraud_type,
      'attachments', p.attachments,
      'financialInstitution', p.financial_institution,
      'eventDate', to_char(p.event_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'companyId', p.company_id,
      'notificationSent', p.notification_sent,
      'status', p.status,
      'victim', p.victim_masked,
      'guestInfo', p.guest_info_masked,
      'reportingEntity', p.reporting_entity,
      'createdAt', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'updatedAt', to_char(p.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'identifiers', (
        select coalesce(json_agg(json_build_object('id', i.id, 'label', i.label, 'value', i.value_token) order by i.position), '[]'::json)
        from public_report_identifiers i where i.public_report_id = p.id
      )
    )::text
    from public_reports p
    where p.id = report
  $$`.execute(db);

  // Statement-level triggers with the changed rows as tables: a bulk insert rebuilds each card
  // once, after all its rows are in. A report created with its identifiers in one statement fires
  // both tables' triggers; the second finds the same text and writes nothing. An update rebuilds only the cards whose text it changes, so
  // `crypto reindex` (new blind indexes) and a key rotation (new fraud-reason tokens) pass by.
  await sql`create function report_cards_rebuild() returns trigger language plpgsql as $$
    declare
      ids uuid[];
    begin
      if tg_table_name = 'companies' then
        select array_agg(r.id) into ids from reports r
        where r.company_id in (select n.id from changed n join before_change o on o.id = n.id
                               where n.business_name is distinct from o.business_name);
      elsif tg_table_name = 'reports' and tg_op = 'UPDATE' then
        select array_agg(n.id) into ids from changed n join before_change o on o.id = n.id
        where (n.company_id, n.user_id, n.show_uploader_info, n.listing_status, n.exited_list_at, n.exit_list_reason,
               n.fraud_type, n.fraud_reason_masked, n.attachments, n.status, n.created_at, n.updated_at)
          is distinct from (o.company_id, o.user_id, o.show_uploader_info, o.listing_status, o.exited_list_at,
               o.exit_list_reason, o.fraud_type, o.fraud_reason_masked, o.attachments, o.status, o.created_at, o.updated_at);
      elsif tg_table_name = 'reports' then
        select array_agg(id) into ids from changed;
      elsif tg_op = 'UPDATE' then
        -- An identifier moved to another report (nothing does that today) changes both cards.
        select array_agg(distinct x.id) into ids from changed n join before_change o on o.id = n.id,
          lateral (values (n.report_id), (o.report_id)) as x(id)
        where (n.report_id, n.position, n.label, n.value_token) is distinct from (o.report_id, o.position, o.label, o.value_token);
      else
        select array_agg(distinct report_id) into ids from changed;
      end if;
      if ids is not null then
        -- One writer of a card at a time: a card is built from this statement's snapshot, so two
        -- transactions changing different rows of one report (a key rotation's identifiers and an
        -- exit, say) would each write a card missing the other's change, and the last would stay.
        -- Locking the reports makes the second wait for the first to commit; the statements below
        -- then take a new snapshot (READ COMMITTED) that sees it. A new report also waits for a
        -- rename of its company in flight, whose rebuild cannot see it (its row is not committed).
        perform 1 from reports where id = any (ids) order by id for no key update;
        if tg_table_name = 'reports' and tg_op = 'INSERT' then
          perform 1 from companies where id in (select company_id from reports where id = any (ids)) order by id for share;
        end if;
        insert into report_cards (report_id, card)
        select r.id, report_card(r.id) from reports r where r.id = any (ids)
        on conflict (report_id) do update set card = excluded.card
        where report_cards.card is distinct from excluded.card;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create function public_report_cards_rebuild() returns trigger language plpgsql as $$
    declare
      ids uuid[];
    begin
      if tg_table_name = 'public_reports' and tg_op = 'UPDATE' then
        select array_agg(n.id) into ids from changed n join before_change o on o.id = n.id
        where (n.fraud_reason_masked, n.fraud_type, n.attachments, n.financial_institution, n.event_date, n.company_id,
               n.notification_sent, n.status, n.victim_masked, n.guest_info_masked, n.reporting_entity, n.created_at, n.updated_at)
          is distinct from (o.fraud_reason_masked, o.fraud_type, o.attachments, o.financial_institution, o.event_date,
               o.company_id, o.notification_sent, o.status, o.victim_masked, o.guest_info_masked, o.reporting_entity,
               o.created_at, o.updated_at);
      elsif tg_table_name = 'public_reports' then
        select array_agg(id) into ids from changed;
      elsif tg_op = 'UPDATE' then
        select array_agg(distinct x.id) into ids from changed n join before_change o on o.id = n.id,
          lateral (values (n.public_report_id), (o.public_report_id)) as x(id)
        where (n.public_report_id, n.position, n.label, n.value_token)
          is distinct from (o.public_report_id, o.position, o.label, o.value_token);
      else
        select array_agg(distinct public_report_id) into ids from changed;
      end if;
      if ids is not null then
        -- One writer of a card at a time, as in report_cards_rebuild.
        perform 1 from public_reports where id = any (ids) order by id for no key update;
        insert into public_report_cards (public_report_id, card)
        select r.id, public_report_card(r.id) from public_reports r where r.id = any (ids)
        on conflict (public_report_id) do update set card = excluded.card
        where public_report_cards.card is distinct from excluded.card;
      end if;
      return null;
    end $$`.execute(db);
  // The functions keep the schema they were migrated under, whoever changes the tables (0007).
  for (const fn of ['report_card(uuid)', 'public_report_card(uuid)', 'report_cards_rebuild()', 'public_report_cards_rebuild()'])
    await sql`alter function ${sql.raw(fn)} set search_path from current`.execute(db);

  // A transition table belongs to one event, so each event has its own trigger.
  const triggers: [table: string, event: string, rebuild: string][] = [
    ['reports', 'insert', 'report_cards_rebuild'],
    ['reports', 'update', 'report_cards_rebuild'],
    ['report_identifiers', 'insert', 'report_cards_rebuild'],
    ['report_identifiers', 'update', 'report_cards_rebuild'],
    ['report_identifiers', 'delete', 'report_cards_rebuild'],
    ['public_reports', 'insert', 'public_report_cards_rebuild'],
    ['public_reports', 'update', 'public_report_cards_rebuild'],
    ['public_report_identifiers', 'insert', 'public_report_cards_rebuild'],
    ['public_report_identifiers', 'update', 'public_report_cards_rebuild'],
    ['public_report_identifiers', 'delete', 'public_report_cards_rebuild'],
  ];
  for (const [table, event, rebuild] of triggers) {
    const transition =
      event === 'delete'
        ? 'old table as changed'
        : event === 'update'
          ? 'old table as before_change new table as changed'
          : 'new table as changed';
    await sql`create trigger ${sql.raw(`${table}_card_on_${event}`)} after ${sql.raw(event)} on ${sql.raw(table)}
      referencing ${sql.raw(transition)} for each statement execute function ${sql.raw(rebuild)}()`.execute(db);
  }
  await sql`create trigger companies_card_on_update after update on companies
    referencing old table as before_change new table as changed
    for each statement execute function report_cards_rebuild()`.execute(db);

  await sql`insert into report_cards (report_id, card) select id, report_card(id) from reports`.execute(db);
  await sql`insert into public_report_cards (public_report_id, card) select id, public_report_card(id) from public_reports`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['reports', 'report_identifiers', 'public_reports', 'public_report_identifiers'])
    for (const event of ['insert', 'update', 'delete'])
      await sql`drop trigger if exists ${sql.raw(`${table}_card_on_${event}`)} on ${sql.raw(table)}`.execute(db);
  await sql`drop trigger if exists companies_card_on_update on companies`.execute(db);
  await sql`drop function report_cards_rebuild()`.execute(db);
  await sql`drop function public_report_cards_rebuild()`.execute(db);
  await sql`drop function report_card(uuid)`.execute(db);
  await sql`drop function public_report_card(uuid)`.execute(db);
  await sql`drop table report_cards`.execute(db);
  await sql`drop table public_report_cards`.execute(db);
}
