import { createHmac } from 'node:crypto';

/**
 * What the audit API shows in place of a search's blind index: HMAC-SHA-256 of the stored index
 * under a key per company (itself an HMAC of the company id under the stored pseudonym key). Equal
 * for one company's searches of one value, so its auditors can group them; unrelated across
 * companies, so two members cannot link their customers by comparing exports. The rows keep the
 * blind index; only the answer is pseudonymised. A `crypto reindex` changes the blind index and so
 * the pseudonym of later searches.
 */
export function createAuditPseudonyms(pseudonymKey: Buffer): (companyId: string, blindIndex: Buffer) => string {
  const companyKeys = new Map<string, Buffer>();
  return (companyId, blindIndex) => {
    let companyKey = companyKeys.get(companyId);
    if (!companyKey) {
      companyKey = createHmac('sha256', pseudonymKey).update(`redflag/audit-pseudonym/v1\n${companyId}`).digest();
      companyKeys.set(companyId, companyKey);
    }
    return createHmac('sha256', companyKey).update(blindIndex).digest('hex');
  };
}
