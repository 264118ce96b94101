import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { verifyPassword } from './passwords.js';
import * as repo from './users.repository.js';

/**
 * An address may hold an account in several companies, and sign-in tells them apart by password
 * alone, so no two of them may share one. Called inside the transaction that sets the password:
 * the address's accounts are locked, so two settings at once cannot both pick the same password.
 */
export async function refuseSharedPassword(
  trx: Kysely<Database> | Transaction<Database>,
  user: { id: string; email: string },
  password: string,
  field: string,
): Promise<void> {
  for (const other of await repo.listLiveUsersByEmail(trx, user.email, true)) {
    if (other.id !== user.id && other.password_hash && (await verifyPassword(other.password_hash, password))) {
      throw AppError.validation([{ field, message: 'must differ from the password of your other Redflag account' }]);
    }
  }
}
