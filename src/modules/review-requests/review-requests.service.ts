import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Keyring } from '../../crypto/keyring.js';
import type { Database, ReviewOutcome, ReviewRequestStatus } from '../../db/schema.js';
import { AppError, type FieldError } from '../../http/errors.js';
import type { IdentifierLabel } from '../../identifiers/labels.js';
import { type BankDirectory, normalizeIdentifier } from '../../identifiers/normalize.js';
import { recordAudit } from '../audit/audit.repository.js';
import { PUBLIC_REPORTS_COMPANY_ID } from '../companies/public-reports-company.js';
import { isUuid } from '../ids.js';
import { normalizeContact } from '../public-reports/contact-details.js';
import type { Moderator } from '../public-reports/moderator.js';
import { parseReference, referenceOf } from '../public-reports/reference.js';
import { freeTextError, trimmedText } from '../trimmed-text.js';
import { type PersonStatus, REVIEW_LIMITS, REVIEW_NOTE_LABEL, REVIEW_REQUEST_LABEL } from './review-request-values.js';
import * as repo from './review-requests.repository.js';

export interface ReviewRequestInput {
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  identifiers: Array<{ label: IdentifierLabel; value: string }>;
  statement: string;
}

type LooseIdentifier = { label?: unknown; value?: unknown } | null;
/** A body as it came, before (or without) its schema: each value is checked for what it is. */
interface LooseInput {
  name?: unknown;
  email?: unknown;
  phone?: unknown;
  identifiers?: unknown;
  statement?: unknown;
}

/** What the request holds, sealed as one token: no part of it is in the database in clear. */
interface Content {
  name: string;
  email: string | null;
  phone: string | null;
  identifiers: Array<{ label: string; value: string }>;
  statement: string;
}

/**
 * The person wrongly listed (decision 0122): they send the details they fear are listed and why the
 * listing is wrong; the operators read it (audited), search the details, dispute what they find as
 * the operators, and close the request with what they did. The intake's answer never depends on
 * whether anything is listed: it is not a public search.
 */
export function createReviewRequestsService(deps: {
  db: Kysely<Database>;
  keyring: Keyring;
  banks: BankDirectory;
  now: () => Date;
}) {
  const { db, keyring, banks, now } = deps;
  const context = (id: string, label = REVIEW_REQUEST_LABEL) => ({ companyId: PUBLIC_REPORTS_COMPANY_ID, recordId: id, label });

  const listed = (row: repo.ReviewRequestRow) => ({
    id: row.id,
    reference: referenceOf(row.id),
    status: row.status,
    labels: row.labels,
    outcome: row.outcome,
    createdAt: row.created_at.toISOString(),
    closedAt: row.closed_at?.toISOString() ?? null,
  });

  async function requireRequest(id: string, trx: Kysely<Database> = db, forUpdate = false) {
    const row = isUuid(id) ? await repo.findReviewRequest(trx, id.toLowerCase(), forUpdate) : undefined;
    if (!row) throw AppError.notFound('Review request not found');
    return row;
  }

  /** The contact, checked: at least one way to answer, each a real address or number. */
  function checkContact(input: { email?: unknown; phone?: unknown }, errors: FieldError[]) {
    const email = typeof input.email === 'string' ? input.email : undefined;
    const phone = typeof input.phone === 'string' ? input.phone : undefined;
    if (email === undefined && phone === undefined) {
      errors.push({ field: 'email', message: 'give an e-mail address or a phone number, so the operators can answer you' });
    }
    const found: FieldError[] = [];
    const contact = normalizeContact({ email, phone }, '', false, found);
    // normalizeContact names a field "<prefix>/email": here the fields are at the top.
    errors.push(...found.map((e) => ({ ...e, field: e.field.replace(/^\//, '') })));
    return contact;
  }

  /**
   * Every value checked at once, whatever the body's shape (a body that failed its schema is
   * checked for what it can be, so the person hears of every mistake in one answer); the errors go
   * to `errors`, the values as they are stored come back.
   */
  function checkValues(input: LooseInput, errors: FieldError[]) {
    const name = typeof input.name === 'string' ? input.name.trim().replace(/\s+/g, ' ') : '';
    if (typeof input.name === 'string') {
      const nameError = freeTextError('name', name, 1);
      if (nameError) errors.push(nameError);
    }
    const contact = checkContact(input, errors);
    const identifiers = (Array.isArray(input.identifiers) ? input.identifiers : []).flatMap((item: LooseIdentifier, i) => {
      if (typeof item?.label !== 'string' || typeof item.value !== 'string') return [];
      const normalized = normalizeIdentifier(item.label as IdentifierLabel, item.value, { banks, purpose: 'search' });
      if (!normalized.ok) errors.push({ field: `identifiers/${i}/value`, message: normalized.message });
      return [{ label: item.label, value: normalized.ok ? normalized.value : '' }];
    });
    const statement = typeof input.statement === 'string' ? input.statement.trim() : '';
    if (typeof input.statement === 'string') {
      const statementError = freeTextError('statement', statement, REVIEW_LIMITS.statementMin, REVIEW_LIMITS.statementMax);
      if (statementError) errors.push(statementError);
    }
    return { name, contact, identifiers, statement };
  }

  return {
    /** What can be said of a body that failed its schema: every value it holds, checked. */
    precheck(body: unknown): FieldError[] {
      const errors: FieldError[] = [];
      if (typeof body === 'object' && body !== null) checkValues(body as LooseInput, errors);
      return errors;
    },

    async intake(input: ReviewRequestInput): Promise<{ id: string; reference: string; status: 'open' }> {
      const errors: FieldError[] = [];
      const { name, contact, identifiers, statement } = checkValues(input, errors);
      if (errors.length > 0) throw AppError.validation(errors);

      const id = randomUUID();
      const content: Content = { name, email: contact.email, phone: contact.phone, identifiers, statement };
      await repo.insertReviewRequest(db, {
        id,
        request_token: keyring.seal(JSON.stringify(content), context(id)),
        labels: [...new Set(identifiers.map((i) => i.label))],
      });
      return { id, reference: referenceOf(id), status: 'open' };
    },

    /**
     * Where a request stands, for the person who sent it (decision 0133): the full id is the proof.
     * Waiting or answered and two times; never the outcome (it would say whether anything is listed,
     * decision 0122), the note, or anything the person sent. An id no request has, anything that is
     * not an id and a request since deleted are the same 404.
     */
    async personStatus(id: string): Promise<{ reference: string; status: PersonStatus; receivedAt: string; updatedAt: string }> {
      const key = isUuid(id) ? id.toLowerCase() : undefined;
      const row = key === undefined ? undefined : await repo.findPersonStatus(db, key);
      if (key === undefined || !row) throw AppError.notFound('Review request not found');
      return {
        reference: referenceOf(key),
        status: row.status === 'closed' ? 'answered' : 'waiting',
        receivedAt: row.created_at.toISOString(),
        updatedAt: (row.closed_at ?? row.created_at).toISOString(),
      };
    },

    async list(query: { status?: ReviewRequestStatus | undefined; reference?: string | undefined; page: number; limit: number }) {
      const offset = (query.page - 1) * query.limit;
      const filter = { status: query.status, ids: query.reference === undefined ? undefined : parseReference(query.reference) };
      const { rows, total } = await repo.listReviewRequests(db, { ...filter, offset, limit: query.limit });
      const count = rows.length === 0 && offset > 0 ? await repo.countReviewRequests(db, filter) : total;
      return { data: rows.map(listed), meta: { total: count, page: query.page, limit: query.limit } };
    },

    /** The request opened, in clear: audited as the operators' read of a person's data. */
    async read(moderator: Moderator, id: string) {
      const row = await requireRequest(id);
      const content = JSON.parse(keyring.open(row.request_token, context(row.id))) as Content;
      const outcomeNote = row.outcome_note_token
        ? keyring.open(row.outcome_note_token, context(row.id, REVIEW_NOTE_LABEL))
        : null;
      await recordAudit(db, { ...moderator, action: 'review_read', subjectId: row.id });
      return { ...listed(row), ...content, outcomeNote };
    },

    async close(moderator: Moderator, id: string, outcome: ReviewOutcome, note: string) {
      return db.transaction().execute(async (trx) => {
        const row = await requireRequest(id, trx, true);
        if (row.status === 'closed') throw new AppError('INVALID_STATE', 'The review request is already closed');
        const text = trimmedText('note', note, REVIEW_LIMITS.noteMin);
        const noteToken = keyring.seal(text, context(row.id, REVIEW_NOTE_LABEL));
        const closed = await repo.closeReviewRequest(trx, row.id, { outcome, noteToken, at: now() });
        await recordAudit(trx, { ...moderator, action: 'review_close', subjectId: row.id });
        return listed(closed);
      });
    },
  };
}

export type ReviewRequestsService = ReturnType<typeof createReviewRequestsService>;
