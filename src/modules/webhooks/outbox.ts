import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Every event a webhook endpoint can subscribe to. */
export const EVENT_TYPES = [
  'watchlist.match',
  'public_report.published',
  'public_report.withdrawn',
  'submission.exited',
  'submission.relisted',
  'submission.disputed',
] as const;
export type WebhookEventType = (typeof EVENT_TYPES)[number];

/**
 * The transactional outbox. Each function runs inside the transaction of the change that causes
 * its events: it writes the event rows and one pending delivery per subscribed active endpoint,
 * so an event exists exactly when its change committed (on PGlite and on a server alike). The
 * delivery worker (delivery.worker.ts) sends them later. Payloads never carry a clear value:
 * they name the watchlist entry (id, label; the worker adds its sealed `ref` when it sends) and the report.
 */

/** Other companies' entries for a report's identifiers: the same label and blind index (accounts carry their bank). */
const REPORT_MATCHES = (reportId: string) => sql`
  select w.id, w.company_id, w.label from report_identifiers ri
    join watchlist_entries w on w.label = ri.label and w.blind_index = ri.blind_index
    where ri.report_id = ${reportId}`;

const PUBLIC_REPORT_MATCHES = (reportId: string) => sql`
  select w.id, w.company_id, w.label from public_report_identifiers pi
    join watchlist_entries w on w.label = pi.label and w.blind_index = pi.blind_index
    where pi.public_report_id = ${reportId}`;

/** The watchlist entries (still watched) that were told of a report or public report's match earlier. */
const EARLIER_MATCHES = (reportId: string) => sql`
  select w.id, w.company_id, w.label from webhook_events e
    join watchlist_entries w on w.id = e.watchlist_entry_id
    where e.report_id = ${reportId} and e.type = 'watchlist.match'`;

// The entry's `ref` is sealed (decision 0135): the delivery worker adds it as it sends (payloadToSend in delivery.worker.ts).
const entryJson = sql`json_build_object('id', m.id, 'label', m.label)`;

/**
 * A member report became visible in search (published or relisted): `watchlist.match` to every
 * other company watching one of its identifiers, once per watchlist entry and report (a relist
 * tells the entries that matched before with `submission.relisted` instead).
 */
export async function raiseReportVisible(db: Db, reportId: string): Promise<void> {
  await insertEvents(
    db,
    sql`with m as (${REPORT_MATCHES(reportId)}), r as (
        select r.id, r.company_id, r.fraud_type, c.business_name from reports r
        join companies c on c.id = r.company_id where r.id = ${reportId}
      )
      select m.company_id, 'watchlist.match' as type, r.id as report_id, m.id as entry_id,
        json_build_object('watchlistEntry', ${entryJson}, 'report', json_build_object(
          'id', r.id, 'kind', 'report', 'fraudType', r.fraud_type, 'reportingCompany', r.business_name)) as payload
      from m cross join r
      where m.company_id <> r.company_id and not exists (
        select 1 from webhook_events e where e.report_id = r.id and e.watchlist_entry_id = m.id and e.type = 'watchlist.match')`,
  );
}

/** A public report was published: `watchlist.match` to every company watching one of its identifiers. */
export async function raisePublicReportVisible(db: Db, publicReportId: string): Promise<void> {
  await insertEvents(
    db,
    sql`with m as (${PUBLIC_REPORT_MATCHES(publicReportId)}), r as (
        select id, fraud_type from public_reports where id = ${publicReportId}
      )
      select m.company_id, 'watchlist.match' as type, r.id as report_id, m.id as entry_id,
        json_build_object('watchlistEntry', ${entryJson}, 'report', json_build_object(
          'id', r.id, 'kind', 'public_report', 'fraudType', r.fraud_type, 'reportingCompany', null)) as payload
      from m cross join r
      where not exists (
        select 1 from webhook_events e where e.report_id = r.id and e.watchlist_entry_id = m.id and e.type = 'watchlist.match')`,
  );
}

/**
 * A member report left the list or came back: `submission.exited` / `submission.relisted` to each
 * watchlist entry that matched it earlier (so a bank can clear or restore its flag).
 */
export async function raiseListingChange(
  db: Db,
  reportId: string,
  type: 'submission.exited' | 'submission.relisted',
): Promise<void> {
  await insertEvents(
    db,
    sql`with m as (${EARLIER_MATCHES(reportId)}), r as (
        select r.id, r.fraud_type, c.business_name from reports r
        join companies c on c.id = r.company_id where r.id = ${reportId}
      )
      select m.company_id, ${type}::text as type, r.id as report_id, m.id as entry_id,
        json_build_object('watchlistEntry', ${entryJson}, 'report', json_build_object(
          'id', r.id, 'kind', 'report', 'fraudType', r.fraud_type, 'reportingCompany', r.business_name)) as payload
      from m cross join r`,
  );
}

/**
 * A published public report was taken down by an operator: `submission.exited` to each watchlist
 * entry it matched on publication, so a member that flagged a customer on it can clear the flag;
 * and `public_report.withdrawn` to each bank that was told of its publication, with what that
 * bank was told then (the link may have changed since; the bank heard it, so it hears this).
 */
export async function raisePublicReportWithdrawn(db: Db, publicReportId: string): Promise<void> {
  await insertEvents(
    db,
    sql`select distinct on (e.company_id) e.company_id, 'public_report.withdrawn'::text as type, e.report_id,
        null::uuid as entry_id, jsonb_build_object('publicReport', e.payload -> 'publicReport') as payload
      from webhook_events e
      where e.report_id = ${publicReportId} and e.type = 'public_report.published'
      order by e.company_id, e.created_at`,
  );
  await insertEvents(
    db,
    sql`with m as (${EARLIER_MATCHES(publicReportId)}), r as (
        select id, fraud_type from public_reports where id = ${publicReportId}
      )
      select m.company_id, 'submission.exited'::text as type, r.id as report_id, m.id as entry_id,
        json_build_object('watchlistEntry', ${entryJson}, 'report', json_build_object(
          'id', r.id, 'kind', 'public_report', 'fraudType', r.fraud_type, 'reportingCompany', null)) as payload
      from m cross join r`,
  );
}

/**
 * A report was disputed: `submission.disputed` to its owner, who has until `respondBy` to answer
 * before the report leaves the list. It names the dispute and the report; who disputed and why
 * are read from the dispute itself (`GET /api/v1/external/disputes/{id}`).
 */
export async function raiseSubmissionDisputed(db: Db, disputeId: string): Promise<void> {
  await insertEvents(
    db,
    sql`select d.report_company_id as company_id, 'submission.disputed'::text as type, d.report_id, null::uuid as entry_id,
        json_build_object(
          'dispute', json_build_object('id', d.id, 'status', d.status,
            'respondBy', to_char(d.respond_by at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
          'report', json_build_object('id', r.id, 'kind', 'report', 'fraudType', r.fraud_type)) as payload
      from disputes d join reports r on r.id = d.report_id
      where d.id = ${disputeId}`,
  );
}

/**
 * For a statement that takes reports off the list in bulk (the listing-expiry job): CTEs to append
 * after its CTE `gone` (returning the reports' `id`), writing `submission.exited` to every watchlist
 * entry that matched them earlier, with their deliveries, in the same statement.
 */
export function exitedWatchersCtes(gone: string): RawBuilder<unknown> {
  const rel = sql.raw(gone);
  return sql`, exit_events as (
      insert into webhook_events (id, company_id, type, report_id, watchlist_entry_id, payload)
      select gen_random_uuid(), w.company_id, 'submission.exited', r.id, w.id, json_build_object(
        'watchlistEntry', json_build_object('id', w.id, 'label', w.label),
        'report', json_build_object('id', r.id, 'kind', 'report', 'fraudType', r.fraud_type, 'reportingCompany', c.business_name)
      )::jsonb
      from ${rel} g join reports r on r.id = g.id join companies c on c.id = r.company_id
      join webhook_events e on e.report_id = g.id and e.type = 'watchlist.match'
      join watchlist_entries w on w.id = e.watchlist_entry_id
      returning id, company_id, type
    ), exit_deliveries as (
      insert into webhook_deliveries (id, event_id, endpoint_id)
      select gen_random_uuid(), x.id, ep.id from exit_events x
      join webhook_endpoints ep on ep.company_id = x.company_id and ep.status = 'active' and x.type = any(ep.events)
    )`;
}

/**
 * A public report was published: `public_report.published` to the member linked to the bank its
 * `financialInstitution` names (by the bank list's name or slug, case-insensitively).
 */
export async function raisePublicReportPublished(db: Db, publicReportId: string): Promise<void> {
  await insertEvents(
    db,
    sql`select c.company_id, 'public_report.published' as type, p.id as report_id, null::uuid as entry_id,
        json_build_object('publicReport', json_build_object('id', p.id, 'fraudType', p.fraud_type,
          'financialInstitution', p.financial_institution, 'bank', json_build_object('name', b.name, 'slug', b.slug))) as payload
      from public_reports p
      join banks b on lower(b.name) = lower(p.financial_institution) or b.slug = lower(p.financial_institution)
      join company_banks c on c.bank_id = b.id
      where p.id = ${publicReportId}`,
  );
}

/** Writes the rows `select` yields (company_id, type, report_id, entry_id, payload) and their deliveries. */
async function insertEvents(db: Db, select: RawBuilder<unknown>): Promise<void> {
  await sql`with ins as (
      insert into webhook_events (id, company_id, type, report_id, watchlist_entry_id, payload)
      select gen_random_uuid(), s.company_id, s.type, s.report_id, s.entry_id, s.payload::jsonb from (${select}) s
      returning id, company_id, type
    )
    -- A statement cannot see rows its own CTE inserted, so the deliveries join the RETURNING rows.
    -- A withdrawal goes wherever its publication went: an endpoint subscribed to
    -- public_report.published (one registered before public_report.withdrawn existed, say) hears both.
    insert into webhook_deliveries (id, event_id, endpoint_id)
    select gen_random_uuid(), ins.id, ep.id from ins
    join webhook_endpoints ep on ep.company_id = ins.company_id and ep.status = 'active'
      and (ins.type = any(ep.events) or (ins.type = 'public_report.withdrawn' and 'public_report.published' = any(ep.events)))`.execute(
    db,
  );
}
