import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { ApiKeysTable, CompanyStatus, Database, KeyRole } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Every column but the hash: what lists and services see of a key. */
export type ApiKeyRow = Omit<Selectable<ApiKeysTable>, 'hash'>;

const KEY_COLUMNS = [
  'id',
  'role',
  'company_id',
  'operator_id',
  'prefix',
  'created_at',
  'expires_at',
  'revoked_at',
  'last_used_at',
  'replaced_by',
] as const;

export type KeyOwner = { role: 'company'; companyId: string } | { role: 'operator'; operatorId: string };

export function insertApiKey(
  db: Db,
  values: { owner: KeyOwner; prefix: string; hash: Buffer; expiresAt: Date | null },
): Promise<ApiKeyRow> {
  const { owner } = values;
  return db
    .insertInto('api_keys')
    .values({
      role: owner.role,
      company_id: owner.role === 'company' ? owner.companyId : null,
      operator_id: owner.role === 'operator' ? owner.operatorId : null,
      prefix: values.prefix,
      hash: values.hash,
      expires_at: values.expiresAt,
    })
    .returning(KEY_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function findApiKeyById(db: Db, id: string, options: { forUpdate?: boolean } = {}): Promise<ApiKeyRow | undefined> {
  const query = db.selectFrom('api_keys').select(KEY_COLUMNS).where('id', '=', id);
  return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

export function listApiKeysByOwner(db: Db, owner: KeyOwner): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .select(KEY_COLUMNS)
    .$call((q) =>
      owner.role === 'company' ? q.where('company_id', '=', owner.companyId) : q.where('operator_id', '=', owner.operatorId),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** Idempotent: a key revoked earlier keeps its first revocation time. */
export function revokeApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .returning(KEY_COLUMNS)
    .executeTakeFirst();
}

/** Marks a rotated key: it expires at the end of the grace period, or earlier if it already would. */
export function retireApiKey(db: Db, id: string, values: { replacedBy: string; graceSeconds: number }): Promise<ApiKeyRow> {
  const graceEnd = sql<Date>`now() + make_interval(secs => ${values.graceSeconds})`;
  return db
    .updateTable('api_keys')
    .set({
      replaced_by: values.replacedBy,
      expires_at: sql<Date>`least(coalesce(expires_at, ${graceEnd}), ${graceEnd})`,
    })
    .where('id', '=', id)
    .returning(KEY_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** What authentication needs to know about a key, with its owner, in one round trip. */
export interface KeyAuthRow {
  id: string;
  role: KeyRole;
  company_id: string | null;
  operator_id: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  business_name: string | null;
  company_status: CompanyStatus | null;
  rate_limit_per_minute: number | null;
  operator_name: string | null;
}

export function findApiKeyForAuth(db: Db, hash: Buffer): Promise<KeyAuthRow | undefined> {
  return db
    .selectFrom('api_keys as k')
    .leftJoin('companies as c', 'c.id', 'k.company_id')
    .leftJoin('operators as o', 'o.id', 'k.operator_id')
    .select([
      'k.id',
      'k.role',
      'k.company_id',
      'k.operator_id',
      'k.expires_at',
      'k.revoked_at',
      'c.business_name',
      'c.status as company_status',
      'c.rate_limit_per_minute',
      'o.name as operator_name',
    ])
    .where('k.hash', '=', hash)
    .executeTakeFirst();
}

/** One statement for any number of keys; a later time never goes backwards. */
export async function recordKeysUsed(db: Db, used: ReadonlyMap<string, Date>): Promise<void> {
  if (used.size === 0) return;
  const ids = [...used.keys()];
  const times = [...used.values()].map((d) => d.toISOString());
  await sql`
    update api_keys as k set last_used_at = u.used_at
    from unnest(${ids}::uuid[], ${times}::timestamptz[]) as u(id, used_at)
    where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.used_at)`.execute(db);
}
