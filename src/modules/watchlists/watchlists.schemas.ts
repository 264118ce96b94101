import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, PageNumber } from '../../http/schema-helpers.js';
import { IdentifierLabelSchema } from '../reports/reports.schemas.js';
import { MAX_WATCHLIST_BATCH, MAX_WATCHLIST_PAGE } from './watchlists.service.js';

const Ref = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: "The company's own reference (e.g. its customer id); travels with every event about the entry",
});

export const AddWatchlistBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          // Checked per item (an unknown label is that item's error, not the whole request's).
          label: Type.String({ minLength: 1, maxLength: 40, description: 'An identifier label, as on reports' }),
          value: Type.String({ minLength: 1, maxLength: 320 }),
          ref: Type.Optional(Ref),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_WATCHLIST_BATCH },
    ),
  },
  { additionalProperties: false },
);

const ItemResult = Type.Union([
  Type.Object({ id: Type.String({ format: 'uuid' }) }),
  Type.Object({
    error: Type.Object({
      code: Type.String({ description: '`VALIDATION_FAILED` or `DUPLICATE` (the same identifier as an earlier item)' }),
      field: Type.String({ description: "The item's field at fault, as `items/3/value`" }),
      message: Type.String(),
    }),
  }),
]);

export const AddWatchlistResponse = Envelope(
  Type.Object({ results: Type.Array(ItemResult, { description: 'One per item, in the order given' }) }),
);

const WatchlistEntry = Type.Object({
  id: Type.String({ format: 'uuid' }),
  label: Type.String(),
  value: Type.String({
    description:
      'The normalised clear value (only ever shown to the company that watches it); the encrypted token when `unreadable` is true',
  }),
  ref: Nullable(Type.String()),
  unreadable: Type.Optional(
    Type.Literal(true, {
      description:
        'Present (true) when the value could not be decrypted: `value` is then its encrypted token (a reference that cannot be decrypted is null); the operators are told, and the entry can still be removed',
    }),
  ),
  createdAt: DateTime(),
});

export const WatchlistQuery = Type.Object({
  page: Type.Optional(PageNumber),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_WATCHLIST_PAGE, default: 20 })),
  label: Type.Optional(IdentifierLabelSchema),
});

export const CountQuery = Type.Object({ label: Type.Optional(IdentifierLabelSchema) });

export const MatchesQuery = Type.Object({
  page: Type.Optional(PageNumber),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_WATCHLIST_PAGE, default: 20 })),
});

const WatchlistMatch = Type.Object({
  id: Type.String({ format: 'uuid', description: "The event's id (a webhook carries the same event)" }),
  type: Type.Union([Type.Literal('watchlist.match'), Type.Literal('submission.exited'), Type.Literal('submission.relisted')], {
    description:
      '`watchlist.match`: a report naming the identifier became visible in search; `submission.exited` / `submission.relisted`: that report left the list or came back',
  }),
  createdAt: DateTime(),
  watchlistEntry: Type.Object({
    id: Type.String({ format: 'uuid' }),
    label: Type.String(),
    value: Nullable(
      Type.String({ description: 'The normalised clear value; null once you stopped watching it (it left with the entry)' }),
    ),
    ref: Nullable(Type.String()),
    watching: Type.Boolean({
      description:
        'Still on your watchlist; when true and `value` is null, the value could not be opened (the operators are told)',
    }),
  }),
  report: Type.Object({
    id: Type.String({ format: 'uuid' }),
    kind: Type.Union([Type.Literal('report'), Type.Literal('public_report')]),
    fraudType: Type.String(),
    reportingCompany: Nullable(Type.String({ description: 'The member that filed it; null for a public report' })),
  }),
});

export const MatchesPage = Envelope(
  Type.Object({
    data: Type.Array(WatchlistMatch),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);

export const WatchlistPage = Envelope(
  Type.Object({
    data: Type.Array(WatchlistEntry),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);

export const CountResponse = Envelope(Type.Object({ count: Type.Integer() }));

export const EntryIdParams = Type.Object({ id: Type.String({ description: 'Watchlist entry id (uuid)' }) });

export const RemovedResponse = Envelope(Type.Object({ id: Type.String() }));
