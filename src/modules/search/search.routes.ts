import { principalOf } from '../../http/auth.js';
import type { RoutesPlugin } from '../../http/types.js';
import { SearchBody, SearchResponse } from './search.schemas.js';
import type { SearchService } from './search.service.js';

/** Search, at the interface's path and under the versioned prefix. */
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
        const body = await search.search(principalOf(request), String(request.id), request.body.identifier, request.body.value);
        // PostgreSQL built the envelope as JSON text (its shape is tested against SearchResponse);
        // Fastify sends a string as it is, so Node neither parses the rows nor serialises them again.
        return reply.type('application/json; charset=utf-8').send(body as never);
      },
    );
  }
};
