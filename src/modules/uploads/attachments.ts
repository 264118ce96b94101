import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import type { UploadOrigin, UploadUrls } from './upload-urls.js';
import { lockUploads, setRecordUploads } from './uploads.repository.js';

/**
 * Attachments as a report (company or public) uses them: reference URLs in, upload ids stored,
 * signed download URLs out. An upload belongs to one report at a time.
 */
export interface ReportAttachments {
  /** The upload ids the URLs name; a URL that is not one of ours is added to `errors` as `attachments/<i>`. */
  parse(urls: readonly string[], errors: FieldError[]): string[];
  /**
   * Attaches the uploads to the record in its transaction, detaching any it held before that are no
   * longer listed; an upload of another company, unknown, or on another report is a 400 naming its index.
   */
  attach(trx: Transaction<Database>, owner: { companyId: string; recordId: string }, uploadIds: readonly string[]): Promise<void>;
  /** Signed download URLs, fresh for each response. */
  links(uploadIds: readonly string[]): string[];
}

export function createReportAttachments(deps: { urls: UploadUrls; origin: UploadOrigin }): ReportAttachments {
  const { urls, origin } = deps;
  const route = `/api/v1/${origin}/uploads`;

  return {
    parse(list, errors) {
      const ids: string[] = [];
      const seen = new Map<string, number>();
      list.forEach((url, i) => {
        const field = `attachments/${i}`;
        const id = urls.parseReference(origin, url);
        if (id === undefined) {
          errors.push({ field, message: `must be a URL returned by POST ${route}` });
          return;
        }
        const first = seen.get(id);
        if (first !== undefined) {
          errors.push({ field, message: `is the same file as attachments/${first}` });
          return;
        }
        seen.set(id, i);
        ids.push(id);
      });
      return ids;
    },

    async attach(trx, owner, uploadIds) {
      const rows = new Map((await lockUploads(trx, uploadIds)).map((row) => [row.id, row]));
      const errors: FieldError[] = [];
      uploadIds.forEach((id, i) => {
        const row = rows.get(id);
        // Unknown and another company's look the same: an id says nothing about other tenants.
        if (!row || row.company_id !== owner.companyId) {
          errors.push({
            field: `attachments/${i}`,
            message: `is not a file uploaded here through POST ${route} (unattached files are removed after 24 hours)`,
          });
        } else if (row.record_id !== null && row.record_id !== owner.recordId) {
          errors.push({ field: `attachments/${i}`, message: 'is already attached to another report; upload the file again' });
        }
      });
      if (errors.length > 0) throw AppError.validation(errors);
      await setRecordUploads(trx, owner.recordId, uploadIds);
    },

    links(uploadIds) {
      const now = Date.now();
      return uploadIds.map((id) => urls.download(id, now));
    },
  };
}
