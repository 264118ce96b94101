// File a report, find it by one of its identifiers, then read it back decoded (an audited action).
import { createRedflagClient } from '../client/src/index.js';

export async function createSearchDecode(baseUrl: string, apiKey: string) {
  const redflag = createRedflagClient({ baseUrl, apiKey });

  const created = await redflag.POST('/api/v1/external/reports', {
    body: {
      fraudType: 'romance_fraud',
      fraudReason: 'Met the victim online, asked for money for a flight ticket, then stopped answering.',
      identifiers: [{ label: 'phone', value: '0803 123 4567' }],
    },
  });
  if (!created.data) throw new Error(`create failed: ${created.error?.message}`);
  const reportId = created.data.data.id;

  // Searches are POSTs: the identifier never travels in a URL.
  const found = await redflag.POST('/api/v1/external/reports/search', { body: { identifier: 'phone', value: '+2348031234567' } });
  if (!found.data) throw new Error(`search failed: ${found.error?.message}`);

  const decoded = await redflag.GET('/api/v1/external/reports/submissions/{id}/decode', { params: { path: { id: reportId } } });
  if (!decoded.data) throw new Error(`decode failed: ${decoded.error?.message}`);
  return { reportId, summary: found.data.data.summary, identifiers: decoded.data.data.report.identifiers };
}
