// Upload a piece of evidence, then file a report that carries it.
import { createRedflagClient } from '../client/src/index.js';

export async function uploadAndAttach(baseUrl: string, apiKey: string, file: Blob) {
  const redflag = createRedflagClient({ baseUrl, apiKey });
  const form = new FormData();
  form.append('file', file, 'statement.pdf');
  const uploaded = await redflag.POST('/api/v1/external/uploads', {
    // openapi-fetch sends a FormData body as it is (multipart), with the browser's or undici's boundary.
    body: form as never,
    bodySerializer: () => form,
  });
  if (!uploaded.data) throw new Error(`upload failed: ${uploaded.error?.message}`);
  const created = await redflag.POST('/api/v1/external/reports', {
    body: {
      fraudType: 'hacker',
      fraudReason: 'Customer account was taken over and emptied; the statement shows the transfers out.',
      identifiers: [{ label: 'bvn', value: '22212345678' }],
      attachments: [uploaded.data.data.url],
    },
  });
  if (!created.data) throw new Error(`create failed: ${created.error?.message}`);
  return created.data.data;
}
