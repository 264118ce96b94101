import type { Kysely, Transaction } from 'kysely';
import type { Database, KeyRole } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { type ChangeActor, recordChange } from '../audit/audit.repository.js';
import { findCompanyById } from '../companies/companies.repository.js';
import { isUuid } from '../ids.js';
import { findOperatorById } from '../operators/operators.repository.js';
import type { KeyEvents } from './key-events.js';
import { displayPrefix, generateApiKey, hashApiKey } from './keys.format.js';
import {
  type ApiKeyRow,
  findApiKeyById,
  insertApiKey,
  type KeyOwner,
  listApiKeysByOwner,
  retireApiKey,
  revokeApiKey,
} from './keys.repository.js';

export type KeyStatus = 'active' | 'expired' | 'revoked';

/** A key as people and programs see it: never the hash, never the key itself. Times are ISO 8601. */
export interface ApiKeyView {
  id: string;
  role: KeyRole;
  companyId: string | null;
  operatorId: string | null;
  prefix: string;
  status: KeyStatus;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  replacedBy: string | null;
}

/** A newly made key: `apiKey` is the only time the full key exists outside its holder. */
export interface IssuedKey {
  key: ApiKeyView;
  apiKey: string;
}

export const DEFAULT_GRACE_HOURS = 24;
export const MAX_GRACE_HOURS = 720;
export const MAX_EXPIRES_IN_DAYS = 3650;

export function toKeyView(row: ApiKeyRow, now = Date.now()): ApiKeyView {
  const status: KeyStatus = row.revoked_at ? 'revoked' : row.expires_at && row.expires_at.getTime() <= now ? 'expired' : 'active';
  return {
    id: row.id,
    role: row.role,
    companyId: row.company_id,
    operatorId: row.operator_id,
    prefix: row.prefix,
    status,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    replacedBy: row.replaced_by,
  };
}

/** Makes a key and stores its hash. Used inside other services' transactions (a new company's first key). */
export async function issueApiKey(
  db: Kysely<Database> | Transaction<Database>,
  owner: KeyOwner,
  options: { expiresInDays?: number | undefined } = {},
): Promise<IssuedKey> {
  const apiKey = generateApiKey();
  const expiresAt = options.expiresInDays === undefined ? null : new Date(Date.now() + options.expiresInDays * 86_400_000);
  const row = await insertApiKey(db, { owner, prefix: displayPrefix(apiKey), hash: hashApiKey(apiKey), expiresAt });
  return { key: toKeyView(row), apiKey };
}

function checkExpiresInDays(value: number | undefined): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > MAX_EXPIRES_IN_DAYS) {
    throw AppError.validation([{ field: 'expiresInDays', message: `must be an integer from 1 to ${MAX_EXPIRES_IN_DAYS}` }]);
  }
}

export type KeysService = ReturnType<typeof createKeysService>;

export function createKeysService({ db, events }: { db: Kysely<Database>; events: KeyEvents }) {
  async function requireCompany(companyId: string): Promise<void> {
    if (!isUuid(companyId) || !(await findCompanyById(db, companyId))) throw AppError.notFound('Company not found');
  }

  /** `companyId`: only that company's key (a company admin); another's is the same 404 as a random id. */
  async function requireKey(
    conn: Kysely<Database> | Transaction<Database>,
    keyId: string,
    forUpdate = false,
    companyId?: string,
  ) {
    const row = isUuid(keyId) ? await findApiKeyById(conn, keyId, { forUpdate }) : undefined;
    if (!row || (companyId !== undefined && row.company_id !== companyId)) throw AppError.notFound('API key not found');
    return row;
  }

  return {
    async issueForCompany(
      companyId: string,
      options: { expiresInDays?: number | undefined } = {},
      actor?: ChangeActor,
    ): Promise<IssuedKey> {
      checkExpiresInDays(options.expiresInDays);
      await requireCompany(companyId);
      return db.transaction().execute(async (trx) => {
        const issued = await issueApiKey(trx, { role: 'company', companyId }, options);
        await recordChange(trx, actor, { companyId, action: 'key_issue', subjectId: issued.key.id });
        return issued;
      });
    },

    async listForCompany(companyId: string): Promise<ApiKeyView[]> {
      await requireCompany(companyId);
      const now = Date.now();
      return (await listApiKeysByOwner(db, { role: 'company', companyId })).map((row) => toKeyView(row, now));
    },

    async listForOperator(operatorId: string): Promise<ApiKeyView[]> {
      if (!isUuid(operatorId) || !(await findOperatorById(db, operatorId))) throw AppError.notFound('Operator not found');
      const now = Date.now();
      return (await listApiKeysByOwner(db, { role: 'operator', operatorId })).map((row) => toKeyView(row, now));
    },

    async get(keyId: string): Promise<ApiKeyView> {
      return toKeyView(await requireKey(db, keyId));
    },

    /** Takes effect at once here and on every instance within 5 s. Revoking twice is harmless. */
    async revoke(keyId: string, companyId?: string, actor?: ChangeActor): Promise<ApiKeyView> {
      if (companyId !== undefined) await requireKey(db, keyId, false, companyId);
      const row = await db.transaction().execute(async (trx) => {
        const revoked = isUuid(keyId) ? await revokeApiKey(trx, keyId) : undefined;
        if (!revoked) throw AppError.notFound('API key not found');
        await recordChange(trx, actor, { companyId: revoked.company_id, action: 'key_revoke', subjectId: revoked.id });
        return revoked;
      });
      await events.publish({ kind: 'key', keyId });
      return toKeyView(row);
    },

    /**
     * Issues a replacement with the same owner (and the same lifetime, when the old key expires); the old key keeps working for the grace period
     * (default 24 h; 0 ends it now) so clients can switch without downtime, then fails.
     */
    async rotate(
      keyId: string,
      options: { graceHours?: number | undefined; expiresInDays?: number | undefined } = {},
      companyId?: string,
      actor?: ChangeActor,
    ): Promise<IssuedKey & { previous: ApiKeyView }> {
      const graceHours = options.graceHours ?? DEFAULT_GRACE_HOURS;
      if (!Number.isFinite(graceHours) || graceHours < 0 || graceHours > MAX_GRACE_HOURS) {
        throw AppError.validation([{ field: 'graceHours', message: `must be a number from 0 to ${MAX_GRACE_HOURS}` }]);
      }
      checkExpiresInDays(options.expiresInDays);
      const result = await db.transaction().execute(async (trx) => {
        const old = await requireKey(trx, keyId, true, companyId);
        const view = toKeyView(old);
        if (view.status !== 'active')
          throw new AppError('INVALID_STATE', `The API key is ${view.status}; issue a new key instead`);
        // A replacement revoked (or expired) since leaves the old key, still in its grace period, with
        // no successor: it may be rotated again, and its grace never grows (retireApiKey).
        const replacement = old.replaced_by ? await findApiKeyById(trx, old.replaced_by) : undefined;
        if (replacement && toKeyView(replacement).status === 'active') {
          throw new AppError('INVALID_STATE', 'The API key has already been rotated; rotate its replacement');
        }
        const owner: KeyOwner =
          old.role === 'company'
            ? { role: 'company', companyId: old.company_id as string }
            : { role: 'operator', operatorId: old.operator_id as string };
        // A key that expires is replaced by one with the same lifetime unless told otherwise: a rotation
        // must not turn a company's 90-day keys into permanent ones without a word.
        // Rotated before (its replacement revoked since), the old key's own expiry is its grace's end:
        // the lifetime to keep is the replacement's, which the first rotation gave the old key's.
        const expiresInDays = options.expiresInDays ?? sameLifetimeInDays(replacement ?? old);
        const issued = await issueApiKey(trx, owner, { expiresInDays });
        const retired = await retireApiKey(trx, old.id, {
          replacedBy: issued.key.id,
          graceSeconds: Math.round(graceHours * 3600),
        });
        await recordChange(trx, actor, { companyId: old.company_id, action: 'key_rotate', subjectId: old.id });
        return { ...issued, previous: toKeyView(retired) };
      });
      await events.publish({ kind: 'key', keyId });
      return result;
    },
  };
}

/** The old key's lifetime in whole days (at least one), or undefined when it never expires. */
function sameLifetimeInDays(key: { created_at: Date; expires_at: Date | null }): number | undefined {
  if (!key.expires_at) return undefined;
  const days = Math.round((key.expires_at.getTime() - key.created_at.getTime()) / 86_400_000);
  return Math.min(MAX_EXPIRES_IN_DAYS, Math.max(1, days));
}
