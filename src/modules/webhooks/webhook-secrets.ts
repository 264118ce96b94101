import type { SealContext } from '../../crypto/keyring.js';
import type { Crypto } from '../../crypto/load-crypto.js';

/** The labels a webhook signing secret is sealed under (also in src/crypto/sealed-columns.ts). */
export const SECRET_LABEL = 'webhook.secret';
export const PREVIOUS_SECRET_LABEL = 'webhook.previousSecret';

export const secretContext = (companyId: string, endpointId: string, label = SECRET_LABEL): SealContext => ({
  companyId,
  recordId: endpointId,
  label,
});

/** The secrets that sign a message now: the current one, and the previous one during its overlap. */
export function endpointSecrets(
  crypto: Crypto,
  row: {
    company_id: string;
    endpoint_id: string;
    secret_token: string;
    previous_secret_token: string | null;
    previous_secret_until: Date | null;
  },
  now: Date,
): string[] {
  const secrets = [crypto.keyring.open(row.secret_token, secretContext(row.company_id, row.endpoint_id))];
  if (row.previous_secret_token && row.previous_secret_until && new Date(row.previous_secret_until) > now) {
    secrets.push(
      crypto.keyring.open(row.previous_secret_token, secretContext(row.company_id, row.endpoint_id, PREVIOUS_SECRET_LABEL)),
    );
  }
  return secrets;
}
