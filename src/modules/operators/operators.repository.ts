import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, OperatorsTable } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

export type OperatorRow = Selectable<OperatorsTable>;

export function insertOperator(db: Db, values: { name: string }): Promise<OperatorRow> {
  return db
    .insertInto('operators')
    .values({ name: values.name })
    .returning(['id', 'name', 'created_at'])
    .executeTakeFirstOrThrow();
}

export function findOperatorById(db: Db, id: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').select(['id', 'name', 'created_at']).where('id', '=', id).executeTakeFirst();
}
