import { randomUUID } from 'node:crypto';
import { type Insertable, type Kysely, sql } from 'kysely';
import type { Crypto } from '../crypto/load-crypto.js';
import type { Database, ReportIdentifiersTable, ReportsTable } from '../db/schema.js';
import type { FieldError } from '../http/errors.js';
import { shippedBankDirectory } from '../identifiers/normalize.js';
import { createSealedIdentifiers } from '../identifiers/sealed-identifiers.js';
import { createAdminServices } from '../modules/admin/admin.commands.js';
import { MAX_RATE_LIMIT_PER_MINUTE } from '../modules/companies/companies.service.js';
import { createKeyEvents } from '../modules/keys/key-events.js';
import { maskFraudReason } from '../modules/reports/reason-masking.js';
import { reasonContext } from '../modules/reports/sealed-reason.js';
import { sealedExitReason } from '../modules/reports/sealed-texts.js';
import {
  checkedBanks,
  fraudReasonOf,
  fraudTypeOf,
  type PopulationShape,
  populationShape,
  reportIdentifiers,
  reportState,
  SEED_COMPANIES,
} from './population.js';

export interface SeededCompany {
  companyId: string;
  businessName: string;
  apiKey: string;
}

export interface SeedResult {
  shape: PopulationShape;
  companies: SeededCompany[];
  /** Reports whose identifiers were sealed and inserted. */
  reports: number;
  identifiers: number;
}

export interface SeedOptions {
  db: Kysely<Database>;
  crypto: Crypto;
  identifiers: number;
  /** Called after each batch with the reports written so far. */
  onProgress?: (reportsDone: number, reportsTotal: number) => void;
  /** Reports per INSERT batch (each batch is one transaction). */
  batchSize?: number;
}

/** Reports spread over the two years before this instant, oldest first (fixed, so cached databases agree). */
const NEWEST = Date.parse('2026-11-01T00:00:00Z');
const SPAN_MS = 2 * 365 * 24 * 3600 * 1000;

/**
 * Fills a migrated, empty database with the benchmark population: companies (each with one key
 * whose company limit is raised to the maximum, so the limiter runs but never refuses), then reports
 * whose identifiers go through the service's own normalise → seal → blind-index code
 * (`createSealedIdentifiers`), written with multi-row INSERTs. The next batch is sealed while the
 * previous ones are being written (on a PostgreSQL server that overlaps Node and the server).
 */
export async function seedPopulation(options: SeedOptions): Promise<SeedResult> {
  const { db, crypto } = options;
  const shape = populationShape(options.identifiers);
  const batchSize = options.batchSize ?? 500;
  const directory = shippedBankDirectory();
  const banks = checkedBanks(directory);
  const sealer = createSealedIdentifiers({ crypto, banks: directory });

  // Only companies are made here; the user service's settings do not matter.
  const admin = createAdminServices({
    db,
    events: createKeyEvents(),
    config: { publicUrl: 'http://127.0.0.1', invitationTtlHours: 72, passwordResetTtlHours: 24, screeningRowsPerSecond: 0 },
  });
  const companies: SeededCompany[] = [];
  for (let i = 0; i < SEED_COMPANIES; i++) {
    const businessName = `Bench ${['Bank', 'MFB', 'Fintech', 'Lender'][i % 4]} ${i + 1}`;
    const created = await admin.companies.create({ businessName, rateLimitPerMinute: MAX_RATE_LIMIT_PER_MINUTE });
    companies.push({ companyId: created.company.id, businessName, apiKey: created.apiKey });
  }

  let identifierCount = 0;
  const buildBatch = (from: number, to: number) => {
    const reports: ReportInsert[] = [];
    const rows: IdentifierInsert[] = [];
    for (let r = from; r < to; r++) {
      const id = randomUUID();
      const company = companies[r % companies.length] as SeededCompany;
      const errors: FieldError[] = [];
      const sealed = sealer.seal(reportIdentifiers(shape, r, banks), { companyId: company.companyId, recordId: id }, errors);
      if (errors.length > 0) throw new Error(`seed report ${r}: ${JSON.stringify(errors)}`);
      const createdAt = new Date(NEWEST - SPAN_MS + Math.floor((r / shape.reports) * SPAN_MS));
      const state = reportState(r);
      reports.push({
        id,
        company_id: company.companyId,
        user_id: r % 3 === 0 ? `officer-${r % 50}` : null,
        fraud_type: fraudTypeOf(r),
        fraud_reason_token: crypto.keyring.seal(fraudReasonOf(r), reasonContext(company.companyId, id)),
        fraud_reason_masked: maskFraudReason(fraudReasonOf(r)),
        show_uploader_info: r % 6 === 0,
        status: state.status,
        listing_status: state.listingStatus,
        exited_list_at: state.listingStatus === 'exited' ? createdAt : null,
        ...(state.listingStatus === 'exited'
          ? sealedExitReason(crypto.keyring, company.companyId, id, 'Funds recovered and the customer cleared by investigation.')
          : {}),
        created_at: createdAt,
        updated_at: createdAt,
        published_at: state.status === 'published' ? createdAt : null,
      });
      sealed.forEach((s, position) => {
        rows.push({ ...s.row, report_id: id, position });
      });
    }
    identifierCount += rows.length;
    // Each new report counts itself in report_counts (migration 0006), locking its row of counts
    // until the batch commits. Two batches in flight must take those rows in one order, or each
    // can hold a row the other waits for (a deadlock, and a failed seed).
    reports.sort((a, b) => countKey(a).localeCompare(countKey(b)));
    return { reports, rows };
  };

  // Two batches are written at once: with one, Node sealing and the server writing took turns and
  // left nearly half of two cores idle. On the embedded engine (one connection) the second queues.
  const writing: Promise<void>[] = [];
  let reportsDone = 0;
  for (let from = 0; from < shape.reports; from += batchSize) {
    const to = Math.min(from + batchSize, shape.reports);
    const batch = buildBatch(from, to);
    if (writing.length >= CONCURRENT_BATCHES) {
      try {
        await writing.shift();
      } catch (error) {
        // The other batch still holds a connection: let it end before the caller closes the pool.
        await Promise.allSettled(writing);
        throw error;
      }
    }
    const write = insertBatch(db, batch.reports, batch.rows).then(() => {
      reportsDone += batch.reports.length;
      options.onProgress?.(reportsDone, shape.reports);
    });
    // Awaited in turn below; until then a failure must not count as unhandled and end the process.
    write.catch(() => {});
    writing.push(write);
  }
  const failed = (await Promise.allSettled(writing)).find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  // Planner statistics and the visibility map, as a database that has been running for a while has them.
  await sql`vacuum analyze reports`.execute(db);
  await sql`vacuum analyze report_identifiers`.execute(db);
  await sql`vacuum analyze report_cards`.execute(db);
  await sql`checkpoint`.execute(db);
  return { shape, companies, reports: shape.reports, identifiers: identifierCount };
}

type ReportInsert = Insertable<ReportsTable>;
type IdentifierInsert = Insertable<ReportIdentifiersTable>;

const CONCURRENT_BATCHES = 2;

const countKey = (report: ReportInsert) => `${report.company_id}|${report.status}|${report.listing_status}|${report.fraud_type}`;

/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 65_535;

/**
 * A batch's reports and identifiers go in as one statement, as the service's create does: the card
 * triggers of both tables then fire once it has ended, the first writes each report's card whole and
 * the second finds the same text and writes nothing (decision 0104). As two statements, each card
 * was written twice and the table left half dead rows, which the first searches paid to prune.
 */
async function insertBatch(db: Kysely<Database>, reports: ReportInsert[], rows: IdentifierInsert[]): Promise<void> {
  const parameters = reports.length * Object.keys(reports[0] ?? {}).length + rows.length * Object.keys(rows[0] ?? {}).length;
  if (parameters > MAX_PARAMETERS)
    throw new Error(
      `A batch of ${reports.length} reports needs ${parameters} parameters, more than PostgreSQL's ${MAX_PARAMETERS}: seed with a smaller batchSize.`,
    );
  await db
    .with('new_reports', (qb) => qb.insertInto('reports').values(reports))
    .insertInto('report_identifiers')
    .values(rows)
    .execute();
}
