import { principalOf } from '../../http/auth.js';
import { envelopeBytes, envelopeHead } from '../../http/envelope-bytes.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import { bodyOutlineOnly } from '../../http/validation.js';
import { checkBatchItem } from './batch-items.js';
import { BatchSearchBody, BatchSearchOutline, BatchSearchResponse, SearchBody, SearchResponse } from './search.schemas.js';
import type { SearchService } from './search.service.js';

const MESSAGE = 'Reports fetched successfully';
const BATCH_MESSAGE = 'Batch searched';

const SEARCH_HEAD = envelopeHead(MESSAGE);
const BATCH_HEAD = envelopeHead(BATCH_MESSAGE);

/** Search, at the interface's path and under the versioned prefix; and many searches in one call. */
export const searchRoutes: RoutesPlugin<{ search: SearchService }> = async (app, { search }) => {
  for (const url of ['/reports/search', '/api/v1/external/reports/search']) {
    app.post(
      url,
      {
        config: { auth: 'any' },
        schema: {
          tags: ['search'],
          summary: 'Search reports by one identifier',
          description:
            'Published, listed reports of every company (newest first, at most 100) and published public reports, with identifier values as encrypted tokens, and a summary over all matches. Every search is audited.',
          body: SearchBody,
          response: { 200: SearchResponse },
        },
      },
      async (request, reply) => {
        const data = await search.search(principalOf(request), String(request.id), request.body.identifier, request.body.value);
        // Node neither parses the rows nor serialises them again (src/http/envelope-bytes.ts).
        return reply.type('application/json; charset=utf-8').send(envelopeBytes(SEARCH_HEAD, data) as never);
      },
    );
  }

  app.post(
    '/api/v1/external/reports/search/batch',
    {
      config: { auth: 'any', rateLimitItems: (body: unknown) => (body as { items: unknown[] }).items.length },
      schema: {
        tags: ['search'],
        summary: 'Search up to 1,000 identifiers in one call',
        description:
          'Each item is searched exactly as a single search is and answered in order: its `data`, or `{ error: { code, field, message } }` when it cannot be searched (a value missing, too long or not normalisable, an unknown type): one bad item never fails the batch. Each searchable item is audited and counts against the rate limit as one request.',
        body: BatchSearchBody,
        response: { 200: BatchSearchResponse, ...errorResponses(429) },
      },
      // The items are checked one by one in the handler (batch-items.ts), so a bad one is its own error.
      validatorCompiler: bodyOutlineOnly(BatchSearchOutline),
    },
    async (request, reply) => {
      const items = (request.body.items as unknown[]).map((item, n) => checkBatchItem(item, n));
      const results = await search.batch(principalOf(request), String(request.id), items);
      return reply
        .type('application/json; charset=utf-8')
        .send(envelopeBytes(BATCH_HEAD, `{"results":[${results.join(',')}]}`) as never);
    },
  );
};
