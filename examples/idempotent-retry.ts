// A create that may be retried safely: the same Idempotency-Key and body replay the first answer
// (`Idempotent-Replayed: true`) instead of filing the report twice — resend after a timeout or a 5xx.
import { randomUUID } from 'node:crypto';
import { createRedflagClient } from '../client/src/index.js';

export async function fileWithRetry(baseUrl: string, apiKey: string, attempts = 3) {
  const redflag = createRedflagClient({ baseUrl, apiKey });
  const idempotencyKey = randomUUID(); // one per report, kept across the retries
  const body = {
    fraudType: 'social_engineering' as const,
    fraudReason: 'Sent a link that imitated our sign-in page and collected customer passwords and OTPs.',
    identifiers: [{ label: 'email' as const, value: 'support@fake-bank.example' }],
  };
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await redflag.POST('/api/v1/external/reports', {
        body,
        params: { header: { 'idempotency-key': idempotencyKey } },
      });
      if (answer.data)
        return { id: answer.data.data.id, replayed: answer.response.headers.get('idempotent-replayed') === 'true' };
      if (answer.response.status < 500 && answer.response.status !== 409) throw new Error(answer.error?.message);
    } catch (error) {
      if (attempt >= attempts) throw error;
    }
    if (attempt >= attempts) throw new Error('gave up');
    await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
  }
}
