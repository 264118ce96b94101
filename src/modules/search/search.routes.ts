import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { principalOf } from '../../http/auth.js';
import type { RoutesPlugin } from '../../http/types.js';
import type { SealedIdentifiers } from '../../identifiers/sealed-identifiers.js';
import type { ReportAttachments } from '../uploads/attachments.js';
import { searchReports } from './search.repository.js';
import { SearchBody, SearchResponse } from './search.schemas.js';
import { withSignedAttachments } from './search-attachments.js';

const MESSAGE = 'Reports fetched successfully';

/** Search, at the interface's path and under the versioned prefix. */
export const searchRoutes: RoutesPlugin<{
  db: Kysely<Database>;
  identifiers: SealedIdentifiers;
  attachments: Pick<ReportAttachments, 'links'>;
}> = async (app, { db, identifiers, attachments }) => {
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
        const principal = principalOf(request);
        const key = identifiers.searchKey(request.body.identifier, request.body.value);
        const { body, hasAttachments } = await searchReports(
          db,
          key,
          {
            companyId: principal.role === 'company' ? principal.companyId : null,
            operatorId: principal.role === 'operator' ? principal.operatorId : null,
            keyId: principal.keyId,
            requestId: String(request.id),
          },
          MESSAGE,
        );
        // PostgreSQL built the envelope as JSON text (shape tested against SearchResponse); Fastify
        // sends a string as it is, so Node neither parses the rows nor serialises them again —
        // unless a report has attachments, whose links can only be signed here.
        const text = hasAttachments ? withSignedAttachments(body, attachments.links) : body;
        return reply.type('application/json; charset=utf-8').send(text as never);
      },
    );
  }
};
