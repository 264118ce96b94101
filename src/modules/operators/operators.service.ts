import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { type ApiKeyView, issueApiKey } from '../keys/keys.service.js';
import { insertOperator } from './operators.repository.js';

export interface OperatorView {
  id: string;
  name: string;
  createdAt: string;
}

export const MAX_NAME_LENGTH = 200;

export type OperatorsService = ReturnType<typeof createOperatorsService>;

/** Operators moderate and administer; they are created from the command line with their first key. */
export function createOperatorsService({ db }: { db: Kysely<Database> }) {
  return {
    async create(input: { name: string }): Promise<{ operator: OperatorView; key: ApiKeyView; apiKey: string }> {
      const name = input.name.trim();
      if (name.length === 0 || name.length > MAX_NAME_LENGTH) {
        throw AppError.validation([{ field: 'name', message: `must be 1 to ${MAX_NAME_LENGTH} characters` }]);
      }
      return db.transaction().execute(async (trx) => {
        const row = await insertOperator(trx, { name });
        const issued = await issueApiKey(trx, { role: 'operator', operatorId: row.id });
        return { operator: { id: row.id, name: row.name, createdAt: row.created_at.toISOString() }, ...issued };
      });
    },
  };
}
