import { companyActorOf, companyOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { errorResponses } from '../../http/openapi.js';
import type { RoutesPlugin } from '../../http/types.js';
import {
  AddWatchlistBody,
  AddWatchlistResponse,
  CountQuery,
  CountResponse,
  EntryIdParams,
  MatchesPage,
  MatchesQuery,
  RemovedResponse,
  WatchlistPage,
  WatchlistQuery,
} from './watchlists.schemas.js';
import type { WatchlistsService } from './watchlists.service.js';

const PATH = '/api/v1/external/watchlist';

/** A company's watchlist: add, list, count, remove. Events about it go to its webhooks. */
export const watchlistRoutes: RoutesPlugin<{ watchlists: WatchlistsService }> = async (app, { watchlists }) => {
  const tags = ['watchlists'];
  const config = { auth: 'company' as const };

  app.post(
    PATH,
    {
      config,
      schema: {
        tags,
        summary: 'Watch identifiers of your customers (1 to 1,000 a request)',
        description:
          'Each item is normalised like a report identifier and stored as a blind index and a sealed value. `results` has one entry per item, in order: `{ id }`, or `{ error }` (a bad item never rejects the others). A report of another company, or a public report, that becomes visible with a watched identifier sends `watchlist.match`.',
        body: AddWatchlistBody,
        response: { 200: AddWatchlistResponse },
      },
    },
    async (request) => {
      const results = await watchlists.add(companyOf(request).companyId, request.body.items);
      return ok({ results }, 'Watchlist items processed');
    },
  );

  app.get(
    PATH,
    {
      config,
      schema: {
        tags,
        summary: 'Your watchlist, newest first (clear values: only you see them)',
        querystring: WatchlistQuery,
        response: { 200: WatchlistPage },
      },
    },
    async (request) => {
      const { page = 1, limit = 20, label } = request.query;
      return ok(await watchlists.list(companyOf(request).companyId, { page, limit, label }), 'Watchlist fetched successfully');
    },
  );

  app.get(
    `${PATH}/count`,
    {
      config,
      schema: { tags, summary: 'How many identifiers you watch', querystring: CountQuery, response: { 200: CountResponse } },
    },
    async (request) =>
      ok({ count: await watchlists.count(companyOf(request).companyId, request.query.label) }, 'Watchlist counted'),
  );

  app.get(
    `${PATH}/matches`,
    {
      config,
      schema: {
        tags,
        summary: "What happened to your watched customers, newest first (the same events as your webhooks')",
        description:
          'Each report of another member, or public report, that named a watched identifier as it became visible (`watchlist.match`), and each such report that later left the list or came back (`submission.exited`, `submission.relisted`), with the identifier in clear and your reference. Kept whether or not you have a webhook endpoint. An identifier you stopped watching keeps its events, with `value` and `ref` null (as does one whose value cannot be opened: the operators are told). Each page read is in your audit trail (`watchlist_matches_read`, with how many it listed).',
        querystring: MatchesQuery,
        response: { 200: MatchesPage },
      },
    },
    async (request) => {
      const { page = 1, limit = 20 } = request.query;
      const { companyId, keyId, userId, requestId } = companyActorOf(request);
      return ok(await watchlists.matches({ companyId, keyId, userId, requestId }, { page, limit }), 'Watchlist matches fetched');
    },
  );

  app.delete(
    `${PATH}/:id`,
    {
      config,
      schema: {
        tags,
        summary: 'Stop watching one identifier',
        params: EntryIdParams,
        response: { 200: RemovedResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      await watchlists.remove(companyOf(request).companyId, request.params.id);
      return ok({ id: request.params.id }, 'Watchlist entry removed');
    },
  );
};
