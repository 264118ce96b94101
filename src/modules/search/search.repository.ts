import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { SearchKey } from '../../identifiers/sealed-identifiers.js';

export interface SearchAudit {
  companyId: string | null;
  operatorId: string | null;
  keyId: string;
  requestId: string;
}

const MAX_RESULTS = 100;
const iso = (expr: string) => sql.raw(`to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/**
 * The whole search in one statement and one round trip: find the reports through the blind index,
 * build the response envelope as JSON text in PostgreSQL (Node passes it through without parsing
 * rows or serialising them again), and write the audit row in the same statement.
 *
 * The statement commits asynchronously: a search changes nothing but its audit row, and waiting for
 * that row's WAL flush was a third of the embedded engine's time per search (an fsync each). The
 * caller tells `AsyncCommits`, so the embedded engine flushes within a second (a server's WAL
 * writer does within 0.6 s); reports and every other write stay synchronous.
 */
export async function searchReports(db: Kysely<Database>, key: SearchKey, audit: SearchAudit, message: string): Promise<string> {
  const match =
    key.column === 'blind_index'
      ? sql`ri.label = ${key.label} and ri.blind_index = ${key.index}`
      : sql`ri.nuban_index = ${key.index}`;
  const result = await sql<{ body: string }>`
    with hits as (
      select distinct ri.report_id from report_identifiers ri where ${match}
    ), visible as (
      select r.* from reports r join hits h on h.report_id = r.id
      where r.status = 'published' and r.listing_status = 'listed'
    ), page as (
      select * from visible order by published_at desc, id desc limit ${MAX_RESULTS}
    ), audit as (
      insert into audit_events (company_id, operator_id, key_id, action, label, blind_index, result_count, request_id)
      select ${audit.companyId}::uuid, ${audit.operatorId}::uuid, ${audit.keyId}::uuid, 'search', ${key.label}, ${key.index},
             (select count(*) from visible), ${audit.requestId}
      -- This statement's transaction commits without waiting for its WAL flush (see README, "Durability").
      from (select set_config('synchronous_commit', 'off', true)) as async_commit
    )
    select json_build_object(
      'success', true,
      'message', ${message}::text,
      'data', json_build_object(
        'reports', coalesce((
          select json_agg(json_build_object(
            'id', p.id,
            'companyId', p.company_id,
            'userId', case when p.show_uploader_info then p.user_id end,
            'listingStatus', p.listing_status,
            'exitedListAt', ${iso('p.exited_list_at')},
            'exitListReason', p.exit_list_reason,
            'fraudType', p.fraud_type,
            'fraudReason', p.fraud_reason,
            'showUploaderInfo', p.show_uploader_info,
            'attachments', p.attachments,
            'status', p.status,
            'createdAt', ${iso('p.created_at')},
            'updatedAt', ${iso('p.updated_at')},
            'reportingCompany', json_build_object('businessName', c.business_name, 'id', c.id),
            'identifiers', (
              select coalesce(json_agg(json_build_object('id', i.id, 'label', i.label, 'value', i.value_token) order by i.position), '[]'::json)
              from report_identifiers i where i.report_id = p.id
            )
          ) order by p.published_at desc, p.id desc)
          from page p join companies c on c.id = p.company_id
        ), '[]'::json),
        'publicReports', '[]'::json,
        'summary', (
          select json_build_object(
            'totalReports', count(*),
            'totalPublicReports', 0,
            'fraudTypes', coalesce((select json_object_agg(t.fraud_type, t.n) from (select fraud_type, count(*) as n from visible group by fraud_type) t), '{}'::json),
            'firstReportedAt', ${iso('min(v.published_at)')},
            'lastReportedAt', ${iso('max(v.published_at)')}
          ) from visible v
        )
      )
    )::text as body`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('search returned no row');
  return row.body;
}
