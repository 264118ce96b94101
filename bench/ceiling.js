// The ceiling: a bare Fastify POST route that validates a small JSON body and answers about 1 KB
// of JSON, in a process with nothing else in it. Every scenario is read as a share of this.
import Fastify from 'fastify';

const app = Fastify({ logger: false });

const report = (i) => ({
  id: `3f0c2a1e-8b7d-4c5e-9a10-${String(i).padStart(12, '0')}`,
  companyId: '9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a',
  fraudType: 'money_mule',
  fraudReason: 'Inflows from many unrelated senders were withdrawn in cash at agents in three states on the same day.',
  status: 'published',
  createdAt: '2026-10-01T12:00:00.000Z',
  identifiers: [
    { label: 'account', value: 'v1.k1.c2VhbGVkLXZhbHVlLW9mLWFuLWFjY291bnQtbnVtYmVy' },
    { label: 'phone', value: 'v1.k1.c2VhbGVkLXZhbHVlLW9mLWEtcGhvbmU' },
  ],
});
const body = { success: true, message: 'Reports fetched successfully', data: { reports: [report(1), report(2)], total: 2 } };

const Report = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    companyId: { type: 'string' },
    fraudType: { type: 'string' },
    fraudReason: { type: 'string' },
    status: { type: 'string' },
    createdAt: { type: 'string' },
    identifiers: {
      type: 'array',
      items: { type: 'object', properties: { label: { type: 'string' }, value: { type: 'string' } } },
    },
  },
};

app.post(
  '/search',
  {
    schema: {
      body: {
        type: 'object',
        properties: {
          identifier: { type: 'string', enum: ['account', 'bvn', 'nin', 'phone', 'email'] },
          value: { type: 'string', minLength: 1, maxLength: 320 },
        },
        required: ['identifier', 'value'],
        additionalProperties: false,
      },
      response: {
        200: {
          type: 'object',
          properties: {
            success: { type: 'boolean' },
            message: { type: 'string' },
            data: { type: 'object', properties: { reports: { type: 'array', items: Report }, total: { type: 'integer' } } },
          },
        },
      },
    },
  },
  async () => body,
);

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
