import { createHmac } from 'node:crypto';

export interface AuditPseudonyms {
  /** In place of a search's blind index. */
  ofValue(companyId: string, blindIndex: Buffer): string;
  /** In place of an event's row id. */
  ofEvent(companyId: string, eventId: string): string;
}

/**
 * What the audit API shows in place of a search's blind index: HMAC-SHA-256 of the stored index
 * under a key per company (itself an HMAC of the company id under the stored pseudonym key). Equal
 * for one company's searches of one value, so its auditors can group them; unrelated across
 * companies, so two members cannot link their customers by comparing exports. The rows keep the
 * blind index; only the answer is pseudonymised. A `crypto reindex` changes the blind index and so
 * the pseudonym of later searches.
 *
 * An event's id is shown the same way, under a key of its own: the row ids are one sequence for
 * every company, so the gap between two of a member's events counted everyone else's activity in
 * between (a 200,000-row screening of another bank showed as a jump of 200,000).
 */
export function createAuditPseudonyms(pseudonymKey: Buffer): AuditPseudonyms {
  const companyKeys = new Map<string, { value: Buffer; event: Buffer }>();
  const keysOf = (companyId: string) => {
    let keys = companyKeys.get(companyId);
    if (!keys) {
      const value = createHmac('sha256', pseudonymKey).update(`redflag/audit-pseudonym/v1\n${companyId}`).digest();
      const event = createHmac('sha256', pseudonymKey).update(`redflag/audit-event-id/v1\n${companyId}`).digest();
      keys = { value, event };
      companyKeys.set(companyId, keys);
    }
    return keys;
  };
  return {
    ofValue: (companyId, blindIndex) => createHmac('sha256', keysOf(companyId).value).update(blindIndex).digest('hex'),
    // 128 bits: unique for any trail's life, and short enough to quote.
    ofEvent: (companyId, eventId) => createHmac('sha256', keysOf(companyId).event).update(eventId).digest('hex').slice(0, 32),
  };
}
