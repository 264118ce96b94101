import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import type { UploadOrigin, UploadUrls } from './upload-urls.js';
import { findUploadOwners, setRecordUploads } from './uploads.repository.js';

type Owner = { companyId: string; recordId: string };
type OwnerRow = { id: string; company_id: string; record_id: string | null };

/**
 * Attachments as a report (company or public) uses them: reference URLs in, upload ids stored,
 * signed download URLs out. An upload belongs to one report at a time.
 */
export interface ReportAttachments {
  /**
   * The upload ids the URLs name. A URL that is not one of ours, names another company's or an
   * unknown upload, or a file on another report is added to `errors` as `attachments/<i>`.
   */
  resolve(urls: readonly string[], owner: Owner, errors: FieldError[]): Promise<string[]>;
  /**
   * Attaches the uploads to the record in its transaction (checked again under a row lock, for a
   * concurrent report), detaching any it held before that are no longer listed.
   */
  attach(trx: Transaction<Database>, owner: Owner, uploadIds: readonly string[]): Promise<void>;
  /** Signed download URLs, fresh for each response. */
  links(uploadIds: readonly string[]): string[];
}

export function createReportAttachments(deps: {
  db: Kysely<Database>;
  urls: UploadUrls;
  origin: UploadOrigin;
}): ReportAttachments {
  const { db, urls, origin } = deps;
  const route = `/api/v1/${origin}/uploads`;

  function parse(list: readonly string[], errors: FieldError[]): Array<{ id: string; index: number }> {
    const found: Array<{ id: string; index: number }> = [];
    const seen = new Map<string, number>();
    list.forEach((url, index) => {
      const field = `attachments/${index}`;
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
      seen.set(id, index);
      found.push({ id, index });
    });
    return found;
  }

  function check(wanted: Array<{ id: string; index: number }>, rows: OwnerRow[], owner: Owner, errors: FieldError[]): void {
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const { id, index } of wanted) {
      const row = byId.get(id);
      // Unknown and another company's look the same: an id says nothing about other tenants.
      if (!row || row.company_id !== owner.companyId) {
        errors.push({
          field: `attachments/${index}`,
          message: `is not a file uploaded here through POST ${route} (unattached files are removed after 24 hours)`,
        });
      } else if (row.record_id !== null && row.record_id !== owner.recordId) {
        errors.push({ field: `attachments/${index}`, message: 'is already attached to another report; upload the file again' });
      }
    }
  }

  return {
    async resolve(list, owner, errors) {
      const problems: FieldError[] = [];
      const wanted = parse(list, problems);
      if (wanted.length > 0) {
        check(
          wanted,
          await findUploadOwners(
            db,
            wanted.map((w) => w.id),
          ),
          owner,
          problems,
        );
      }
      // In index order, whichever check found them.
      const index = (e: FieldError) => Number(e.field.split('/')[1]);
      errors.push(...problems.sort((a, b) => index(a) - index(b)));
      return wanted.map((w) => w.id);
    },

    async attach(trx, owner, uploadIds) {
      const wanted = uploadIds.map((id, index) => ({ id, index }));
      const errors: FieldError[] = [];
      check(wanted, await findUploadOwners(trx, uploadIds, true), owner, errors);
      if (errors.length > 0) throw AppError.validation(errors);
      await setRecordUploads(trx, owner.recordId, uploadIds);
    },

    links(uploadIds) {
      const now = Date.now();
      return uploadIds.map((id) => urls.download(id, now));
    },
  };
}
