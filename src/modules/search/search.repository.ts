import { CompiledQuery, type Kysely, sql } from 'kysely';
import { ASYNC_COMMIT } from '../../db/async-commit.js';
import type { Database } from '../../db/schema.js';
import type { SearchKey } from '../../identifiers/sealed-identifiers.js';
import { AUDIT_RECORD_COLUMNS, auditRecordOf, type SearchAudit } from './search-audit.repository.js';
import { type GroupedSearch, shapeOf } from './search-coalescer.js';
import { type VerdictInput, verdictInputsSql, verdictOfInputs } from './verdict.js';

const MAX_RESULTS = 100;
const iso = (expr: string) => sql.raw(`to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

export interface SearchResult {
  /** The search's `data` (reports, publicReports, summary) as JSON text; the route wraps the envelope. */
  body: string;
  /** Whether any listed report has attachments: only then are upload ids turned into signed links in Node. */
  hasAttachments: boolean;
  /** Reports and public reports found (the audit row's count). */
  resultCount: number;
}

/**
 * The whole search in one read-only statement and one round trip: find the company and public
 * reports through the blind index and build the answer's `data` as JSON text in PostgreSQL (Node
 * passes it through without parsing rows or serialising them again; the route puts the envelope
 * around it). The audit row is the caller's: searchReportsAudited writes it in the same statement,
 * search-audit-writer.ts in groups for a batch's items.
 */
export async function searchReports(
  db: Kysely<Database>,
  key: SearchKey,
  riskHalfLifeDays: number,
  part: SearchPart = 'whole',
): Promise<SearchResult> {
  const statement = compiledStatement(db, 'one', key.column, key.indexes.length, part);
  const result = await db.executeQuery<SearchRow>(CompiledQuery.raw(statement.sql, parametersOf(statement, { one: key })));
  const row = result.rows[0];
  if (!row) throw new Error('search returned no row');
  return resultOf(row, riskHalfLifeDays);
}

/**
 * Several searches of one shape (the same index column and number of live index keys) in one
 * statement: the single search's statement run once per key (a lateral join over the keys), so
 * each answer is the one `searchReports` gives, word for word. What a statement costs besides its
 * rows — the round trip, the transaction, the locks on its tables and indexes, starting its
 * executor — is paid once for the group (search-coalescer.ts, decision 0094). Answers come back
 * in the keys' order.
 */
export async function searchReportsMany(
  db: Kysely<Database>,
  keys: readonly SearchKey[],
  riskHalfLifeDays: number,
  part: SearchPart = 'whole',
): Promise<SearchResult[]> {
  const first = keys[0];
  if (!first) return [];
  // One key alone takes the plain statement: no arrays to unpack, the same answer.
  if (keys.length === 1) return [await searchReports(db, first, riskHalfLifeDays, part)];
  // The statement is built for the first key's shape: another shape would be searched in the wrong column.
  const shape = shapeOf(first);
  if (keys.some((key) => shapeOf(key) !== shape)) throw new Error('searchReportsMany takes keys of one shape (inShapeGroups)');
  const statement = compiledStatement(db, 'many', first.column, first.indexes.length, part);
  const result = await db.executeQuery<SearchRow & { n: number }>(
    CompiledQuery.raw(statement.sql, parametersOf(statement, { many: keys })),
  );
  if (result.rows.length !== keys.length) throw new Error('search returned a row count other than its keys');
  const results: SearchResult[] = new Array(keys.length);
  for (const row of result.rows) results[row.n - 1] = resultOf(row, riskHalfLifeDays);
  return results;
}

/**
 * Single searches that share a statement (search-coalescer.ts), each with its own audit row: the
 * statement of searchReportsMany, which also inserts one audit row per search (`searches`, several
 * for a key searched several times at once) with the count it found. The row commits with the
 * answer or not at all, without a statement of its own (decision 0097); the transaction does not
 * wait for its WAL flush, as search audit rows never did (search-audit.repository.ts).
 */
export async function searchReportsAudited(
  db: Kysely<Database>,
  keys: readonly SearchKey[],
  searches: readonly GroupedSearch<SearchAudit>[],
  riskHalfLifeDays: number,
): Promise<SearchResult[]> {
  const first = keys[0];
  if (!first) return [];
  const shape = shapeOf(first);
  if (keys.some((key) => shapeOf(key) !== shape)) throw new Error('searchReportsAudited takes keys of one shape (inShapeGroups)');
  // A search naming no key would answer without a row (the insert joins on it); a key no search names would be searched for no one.
  const named = new Set(searches.map(({ slot }) => slot));
  if (named.size !== keys.length || searches.some(({ slot }) => !(Number.isInteger(slot) && slot >= 0 && slot < keys.length)))
    throw new Error('searchReportsAudited takes searches that name every key, and only its keys');
  const statement = compiledStatement(db, 'audited', first.column, first.indexes.length, 'whole');
  const result = await db.executeQuery<SearchRow & { n: number }>(
    CompiledQuery.raw(statement.sql, parametersOf(statement, { many: keys, searches })),
  );
  if (result.rows.length !== keys.length) throw new Error('search returned a row count other than its keys');
  const results: SearchResult[] = new Array(keys.length);
  for (const row of result.rows) results[row.n - 1] = resultOf(row, riskHalfLifeDays);
  return results;
}

function resultOf(row: SearchRow, riskHalfLifeDays: number): SearchResult {
  return {
    body: setRiskLevel(row.body, new Date(Number(row.now_ms)), riskHalfLifeDays),
    hasAttachments: row.has_attachments,
    resultCount: row.result_count,
  };
}

/** A call's keys: the one of the single statement, or the many of the grouped one (with its searches' audits when it writes them). */
type SearchValues =
  | { one: SearchKey; many?: undefined; searches?: undefined }
  | { one?: undefined; many: readonly SearchKey[]; searches?: readonly GroupedSearch<SearchAudit>[] };

interface SearchRow {
  body: string;
  has_attachments: boolean;
  now_ms: number;
  result_count: number;
}

/** A parameter's place in the compiled statement, and how a call's values fill it. */
class Slot {
  constructor(readonly pick: (values: SearchValues) => unknown) {}
}

/** A constant of the statement (the page size) is its own value. */
const parametersOf = (statement: CompiledQuery, values: SearchValues) =>
  statement.parameters.map((p) => (p instanceof Slot ? p.pick(values) : p));

/** One key; many; many with an audit row per search written by the statement. */
type Arity = 'one' | 'many' | 'audited';

/**
 * What of the search's `data` is built: all of it, or (`summary`) the summary alone, with
 * `reports` and `publicReports` empty. A screening job keeps only a match's figures: building the
 * lists of a common hit (18 reports, 28 KB) it would throw away is most of its statement. The
 * summary comes from the same SQL either way.
 */
export type SearchPart = 'whole' | 'summary';

/**
 * The statement's text and its parameters' slots, compiled once per shape (one key or many, which
 * index column, how many live index keys). Compiling the 5 KB statement on every search was 5% of
 * the service's time, and a fresh string each time made the prepared-statement name lookup hash it
 * again (2%); one string per shape is hashed once.
 */
const compiled = new Map<string, CompiledQuery>();
function compiledStatement(
  db: Kysely<Database>,
  arity: Arity,
  column: SearchKey['column'],
  digestCount: number,
  part: SearchPart,
): CompiledQuery {
  const shape = `${arity}:${column}:${digestCount}:${part}`;
  let statement = compiled.get(shape);
  if (!statement) {
    statement = (
      arity === 'one'
        ? buildSearchStatement(column, digestCount, 'one', part)
        : arity === 'many'
          ? buildManyStatement(column, digestCount, part)
          : buildAuditedStatement(column, digestCount)
    ).compile(db);
    compiled.set(shape, statement);
  }
  return statement;
}

/**
 * The keys as rows `k(label, d0, d1…, n)`. Each array sits in a scalar subquery so that PostgreSQL
 * cannot see its length when planning: with the arrays as plain parameters every execution got a
 * custom plan sized to its group (2 ms of planning for a 5 KB statement, every time), while hidden
 * they cost the same in every plan and the prepared statement settles on its generic plan.
 */
function buildManyStatement(column: SearchKey['column'], digestCount: number, part: SearchPart, withKey = false) {
  const arrays = [
    sql`(select ${new Slot((v) => v.many?.map((k) => k.label))}::text[])`,
    ...Array.from({ length: digestCount }, (_, n) => sql`(select ${new Slot((v) => v.many?.map((k) => k.indexes[n]))}::bytea[])`),
  ];
  const columns = ['label', ...Array.from({ length: digestCount }, (_, n) => `d${n}`), 'n'].join(', ');
  return sql<SearchRow & { n: number }>`
    select k.n::int as n, s.body, s.now_ms, s.result_count, s.has_attachments${withKey ? sql`, k.label, k.d0 as digest` : sql``}
    from unnest(${sql.join(arrays)}) with ordinality as k(${sql.raw(columns)})
    cross join lateral (${buildSearchStatement(column, digestCount, 'many', part)}) as s`;
}

/**
 * buildManyStatement's searches, and one audit row per search, in one statement. The rows come as
 * JSON text (one parameter both drivers pass alike), each naming its key's place `n`; label,
 * digest and count are the key's and its answer's.
 */
function buildAuditedStatement(column: SearchKey['column'], digestCount: number) {
  const searches = new Slot((v) =>
    JSON.stringify((v.searches ?? []).map(({ slot, audit }) => ({ n: slot + 1, ...auditRecordOf(audit) }))),
  );
  return sql<SearchRow & { n: number }>`
    with found as (${buildManyStatement(column, digestCount, 'whole', true)}), audited as (
      insert into audit_events (company_id, operator_id, key_id, user_id, action, label, blind_index, result_count, request_id)
      select a.company_id, a.operator_id, a.key_id, a.user_id, 'search', f.label, f.digest, f.result_count, a.request_id
      from json_to_recordset((select ${searches}::json)) as a(n int, ${AUDIT_RECORD_COLUMNS})
        join found f on f.n = a.n,
        ${ASYNC_COMMIT}
    )
    select n, body, now_ms, result_count, has_attachments from found`;
}

/** The search of one key: from the statement's parameters, or (`many`) from the row `k` of buildManyStatement. */
function buildSearchStatement(column: SearchKey['column'], digestCount: number, arity: Arity, part: SearchPart) {
  const label = arity === 'one' ? sql`${new Slot((v) => v.one?.label)}` : sql.ref('k.label');
  // One digest per live index-key version: during `crypto reindex` a row is under the old or the new.
  const digests = sql.join(
    Array.from({ length: digestCount }, (_, n) => (arity === 'one' ? new Slot((v) => v.one?.indexes[n]) : sql.ref(`k.d${n}`))),
  );
  const match =
    column === 'blind_index' ? sql`ri.label = ${label} and ri.blind_index in (${digests})` : sql`ri.nuban_index in (${digests})`;
  const publicMatch =
    column === 'blind_index' ? sql`pi.label = ${label} and pi.blind_index in (${digests})` : sql`pi.nuban_index in (${digests})`;
  return sql<SearchRow>`
    with hits as (
      select distinct ri.report_id from report_identifiers ri where ${match}
    ), visible as (
      select r.* from reports r join hits h on h.report_id = r.id
      where r.status = 'published' and r.listing_status = 'listed'
    ), page as (
      select * from visible order by published_at desc, id desc limit ${MAX_RESULTS}
    ), disputed as (
      -- A report's unresolved dispute (the earliest, when several companies dispute it).
      select distinct on (d.report_id) d.report_id, d.status, d.opened_at, d.respond_by
      from disputes d join visible v on v.id = d.report_id
      where d.status in ('open', 'upheld', 'escalated')
      order by d.report_id, d.opened_at
    ), public_hits as (
      select distinct pi.public_report_id from public_report_identifiers pi where ${publicMatch}
    ), public_visible as (
      select pr.* from public_reports pr join public_hits h on h.public_report_id = pr.id
      where pr.status = 'published'
    ), public_page as (
      select * from public_visible order by created_at desc, id desc limit ${MAX_RESULTS}
    ), both_lists as (
      -- Every matching report once: the summary's counts and dates, and the verdict's inputs
      -- (src/modules/search/verdict.ts: a public report has no member company and no dispute).
      select v.fraud_type, v.published_at as reported_at, v.company_id, (dd.report_id is not null) as disputed
      from visible v left join disputed dd on dd.report_id = v.id
      union all
      select fraud_type, created_at, null::uuid, false from public_visible
    )
    -- The body as text, in json_build_object's own format: the lists are cards joined as text
    -- (REPORTS_LIST), which a cast to json would parse again for nothing.
    select '{"reports" : ' || ${part === 'summary' ? sql`'[]'` : REPORTS_LIST}
      || ', "publicReports" : ' || ${part === 'summary' ? sql`'[]'` : PUBLIC_REPORTS_LIST}
      || ', "summary" : ' || (
          select json_build_object(
            'totalReports', (select count(*) from visible),
            'totalPublicReports', (select count(*) from public_visible),
            'fraudTypes', coalesce((select json_object_agg(t.fraud_type, t.n order by t.fraud_type collate "C") from (select fraud_type, count(*) as n from both_lists group by fraud_type) t), '{}'::json),
            'firstReportedAt', ${iso('min(b.reported_at)')},
            'lastReportedAt', ${iso('max(b.reported_at)')},
            'distinctCompanies', (select count(distinct company_id) from visible),
            'openDisputes', (select count(*) from disputed),
            -- The verdict's inputs, last in the body; Node replaces them by the level (setRiskLevel).
            'riskLevel', ${verdictInputsSql('b')}
          )::text from both_lists b
        ) || '}' as body,
    (extract(epoch from now()) * 1000)::float8 as now_ms,
    (select count(*) from both_lists)::int as result_count,
    ${
      part === 'summary'
        ? sql`false`
        : sql`exists (select 1 from page where cardinality(attachments) > 0)
      or exists (select 1 from public_page where cardinality(attachments) > 0)`
    } as has_attachments`;
}

/**
 * The page of company reports as the answer lists them (the CTEs page and disputed): each report's
 * card (migration 0018, decision 0102: its entry as `json_build_object` wrote it, without the
 * dispute and the closing brace) closed with its open dispute, joined as `json_agg` joins its
 * items. A report without a card (none is, while the triggers stand) gets its entry from the
 * function the triggers use.
 */
const REPORTS_LIST = sql`coalesce((
          select '[' || string_agg(
            coalesce(rc.card, report_card(p.id)) || ', "dispute" : ' || coalesce((
              select json_build_object('status', dd.status, 'openedAt', ${iso('dd.opened_at')}, 'respondBy', ${iso('dd.respond_by')})::text
              from disputed dd where dd.report_id = p.id
            ), 'null') || '}',
            ', ' order by p.published_at desc, p.id desc) || ']'
          from page p left join report_cards rc on rc.report_id = p.id
        ), '[]')`;

/** The page of public reports as the answer lists them (the CTE public_page): their cards, as REPORTS_LIST joins them. */
const PUBLIC_REPORTS_LIST = sql`coalesce((
          select '[' || string_agg(coalesce(pc.card, public_report_card(p.id)), ', ' order by p.created_at desc, p.id desc) || ']'
          from public_page p left join public_report_cards pc on pc.public_report_id = p.id
        ), '[]')`;

const RISK_KEY = '"riskLevel" : ';
/** How json_build_object closes the summary, then data. */
const BODY_END = '}}';

/**
 * Replaces the verdict's inputs, which PostgreSQL wrote as the summary's last value (so the rule
 * needs no subquery of its own to plan), by the level `verdict()` gives them. The key is found from
 * the end: the summary is the body's last object, and a key-like text inside a string value has its
 * quotes escaped.
 */
function setRiskLevel(body: string, now: Date, halfLifeDays: number): string {
  const at = body.lastIndexOf(RISK_KEY);
  if (at < 0 || !body.endsWith(BODY_END)) throw new Error('search body does not end with the verdict inputs');
  const start = at + RISK_KEY.length;
  const inputs = JSON.parse(body.slice(start, body.length - BODY_END.length)) as VerdictInput[] | null;
  return `${body.slice(0, start)}"${verdictOfInputs(inputs, now, halfLifeDays)}"${BODY_END}`;
}
