import type { Migration } from 'kysely';
import * as banks from './2026_11_22_0001_banks.js';
import * as companiesAndKeys from './2026_11_22_0002_companies_and_keys.js';
import * as encryptionKeys from './2026_11_22_0003_encryption_keys.js';
import * as reports from './2026_11_22_0004_reports.js';
import * as uploadsAndPublicReports from './2026_11_22_0005_uploads_and_public_reports.js';
import * as reportCounts from './2026_11_22_0006_report_counts.js';
import * as reportCountsSearchPath from './2026_11_22_0007_report_counts_search_path.js';

/**
 * Every migration, by name; names sort in the order they run. A landed migration is never
 * edited: change the schema with a new file listed here.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_22_0001_banks': banks,
  '2026_11_22_0002_companies_and_keys': companiesAndKeys,
  '2026_11_22_0003_encryption_keys': encryptionKeys,
  '2026_11_22_0004_reports': reports,
  '2026_11_22_0005_uploads_and_public_reports': uploadsAndPublicReports,
  '2026_11_22_0006_report_counts': reportCounts,
  '2026_11_22_0007_report_counts_search_path': reportCountsSearchPath,
};
