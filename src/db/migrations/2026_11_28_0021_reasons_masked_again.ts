import { type Kysely, sql } from 'kysely';
import { maskFraudReason } from '../../modules/reports/reason-masking.js';

const BATCH = 1000;

/**
 * The masked reasons other companies see are masked again by today's rule, which also reads
 * numbers written with brackets, spaces of other kinds, invisible characters and digits of other
 * scripts (`(0803) 123 4567`, `０８０３...`): the rule of migration 0008 left those in clear.
 *
 * The rule is applied to the stored masked text, not to the sealed reason (a migration has no
 * key): every digit the old rule left is still in that text, so whatever the new rule would mask
 * in the reason it masks there too, except that a number the old rule masked in part keeps one
 * or two more digits beside its stars. Only rows that can change are read: ten ASCII digits or
 * more, or any character outside ASCII. Each changed row's report card is rebuilt by its trigger
 * (migration 0018).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['reports', 'public_reports']) {
    for (let after = '00000000-0000-0000-0000-000000000000'; ; ) {
      const { rows } = await sql<{ id: string; masked: string }>`
        select id, fraud_reason_masked as masked from ${sql.table(table)}
        where id > ${after}::uuid
          and (octet_length(fraud_reason_masked) <> char_length(fraud_reason_masked)
               or char_length(regexp_replace(fraud_reason_masked, '[^0-9]', '', 'g')) >= 10)
        order by id limit ${BATCH}`.execute(db);
      if (rows.length === 0) break;
      const changed = rows.flatMap((row) => {
        const masked = maskFraudReason(row.masked);
        return masked === row.masked ? [] : [sql`(${row.id}::uuid, ${masked})`];
      });
      if (changed.length > 0) {
        await sql`update ${sql.table(table)} as t set fraud_reason_masked = v.masked
          from (values ${sql.join(changed)}) as v(id, masked) where t.id = v.id`.execute(db);
      }
      after = (rows.at(-1) as { id: string }).id;
    }
  }
}

export async function down(): Promise<void> {
  // The old masks showed what the new ones hide: nothing to undo.
}
