import type { Migration } from 'kysely';
import * as banks from './2026_11_22_0001_banks.js';
import * as companiesAndKeys from './2026_11_22_0002_companies_and_keys.js';
import * as encryptionKeys from './2026_11_22_0003_encryption_keys.js';
import * as reports from './2026_11_22_0004_reports.js';
import * as uploadsAndPublicReports from './2026_11_22_0005_uploads_and_public_reports.js';
import * as reportCounts from './2026_11_22_0006_report_counts.js';
import * as reportCountsSearchPath from './2026_11_22_0007_report_counts_search_path.js';
import * as maskedReasonsKeyedRequestDigests from './2026_11_23_0008_masked_reasons_keyed_request_digests.js';
import * as usersAndSessions from './2026_11_23_0009_users_and_sessions.js';
import * as fairness from './2026_11_23_0010_fairness.js';
import * as wrappedKeys from './2026_11_23_0011_wrapped_keys.js';
import * as phoneMasks from './2026_11_23_0011a_phone_masks.js';
import * as serviceInstances from './2026_11_23_0012_service_instances.js';
import * as watchlistsWebhooks from './2026_11_23_0014_watchlists_webhooks.js';
import * as pendingNameReindex from './2026_11_23_0015_pending_name_reindex.js';
import * as sealedFraudReasons from './2026_11_23_0016_sealed_fraud_reasons.js';
import * as screenings from './2026_11_23_0017_screenings.js';
import * as reportCards from './2026_11_27_0018_report_cards.js';
import * as cardRebuildsWithoutJit from './2026_11_27_0019_card_rebuilds_without_jit.js';
import * as auditEventsSmallSample from './2026_11_28_0020_audit_events_small_sample.js';
import * as reasonsMaskedAgain from './2026_11_28_0021_reasons_masked_again.js';
import * as reportsExitedByDispute from './2026_11_28_0022_reports_exited_by_dispute.js';
import * as reportsExitedByOperator from './2026_11_28_0024_reports_exited_by_operator.js';
import * as auditSubject from './2026_11_28_0025_audit_subject.js';
import * as publicReportsCompanyHasNoPeople from './2026_11_28_0026_public_reports_company_has_no_people.js';
import * as accountsPerMember from './2026_11_28_0027_accounts_per_member.js';
import * as reviewRequests from './2026_11_28_0028_review_requests.js';
import * as screeningSealedViews from './2026_11_28_0029_screening_sealed_views.js';
import * as publicBankNamesMasked from './2026_11_28_0030_public_bank_names_masked.js';
import * as watchlistImportReceiver from './2026_11_28_0031_watchlist_import_receiver.js';
import * as peopleTextsSealed from './2026_11_29_0032_people_texts_sealed.js';
import * as passwordLinks from './2026_11_29_0033_password_links.js';
import * as publicReportsFirstPublished from './2026_11_29_0034_public_reports_first_published.js';
import * as memberNotesSealed from './2026_11_29_0035_member_notes_sealed.js';
import * as accountRecoveryTwoPeople from './2026_11_29_0036_account_recovery_two_people.js';
import * as companyEventsIndex from './2026_11_29_0037_company_events_index.js';
import * as watchlistAlerts from './2026_11_29_0038_watchlist_alerts.js';
import * as watchlistAlertsDaily from './2026_11_29_0039_watchlist_alerts_daily.js';

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
  '2026_11_23_0008_masked_reasons_keyed_request_digests': maskedReasonsKeyedRequestDigests,
  '2026_11_23_0009_users_and_sessions': usersAndSessions,
  '2026_11_23_0010_fairness': fairness,
  '2026_11_23_0011_wrapped_keys': wrappedKeys,
  '2026_11_23_0011a_phone_masks': phoneMasks,
  '2026_11_23_0012_service_instances': serviceInstances,
  '2026_11_23_0014_watchlists_webhooks': watchlistsWebhooks,
  '2026_11_23_0015_pending_name_reindex': pendingNameReindex,
  '2026_11_23_0016_sealed_fraud_reasons': sealedFraudReasons,
  '2026_11_23_0017_screenings': screenings,
  '2026_11_27_0018_report_cards': reportCards,
  '2026_11_27_0019_card_rebuilds_without_jit': cardRebuildsWithoutJit,
  '2026_11_28_0020_audit_events_small_sample': auditEventsSmallSample,
  '2026_11_28_0021_reasons_masked_again': reasonsMaskedAgain,
  '2026_11_28_0022_reports_exited_by_dispute': reportsExitedByDispute,
  '2026_11_28_0024_reports_exited_by_operator': reportsExitedByOperator,
  '2026_11_28_0025_audit_subject': auditSubject,
  '2026_11_28_0026_public_reports_company_has_no_people': publicReportsCompanyHasNoPeople,
  '2026_11_28_0027_accounts_per_member': accountsPerMember,
  '2026_11_28_0028_review_requests': reviewRequests,
  '2026_11_28_0029_screening_sealed_views': screeningSealedViews,
  '2026_11_28_0030_public_bank_names_masked': publicBankNamesMasked,
  '2026_11_28_0031_watchlist_import_receiver': watchlistImportReceiver,
  '2026_11_29_0032_people_texts_sealed': peopleTextsSealed,
  '2026_11_29_0033_password_links': passwordLinks,
  '2026_11_29_0034_public_reports_first_published': publicReportsFirstPublished,
  '2026_11_29_0035_member_notes_sealed': memberNotesSealed,
  '2026_11_29_0036_account_recovery_two_people': accountRecoveryTwoPeople,
  '2026_11_29_0037_company_events_index': companyEventsIndex,
  '2026_11_29_0038_watchlist_alerts': watchlistAlerts,
  '2026_11_29_0039_watchlist_alerts_daily': watchlistAlertsDaily,
};
