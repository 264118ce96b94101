import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, Nullable, PageNumber } from '../../http/schema-helpers.js';

export const NamedReportsQuery = Type.Object({
  page: Type.Optional(PageNumber),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

const Reference = Type.String({ description: 'The reference its sender was given (`3F0C-2A1E`), to quote to the operators' });

const NamedReportListed = Type.Object({
  id: Type.String({ format: 'uuid' }),
  reference: Reference,
  fraudType: Type.String(),
  financialInstitution: Type.String({ description: 'The bank or payment service the sender named, as they chose it' }),
  eventDate: DateTime('When it happened, as the sender said'),
  status: Type.Union([Type.Literal('published'), Type.Literal('taken_down')], {
    description:
      '`taken_down`: the operators took it down since (then `public_report.withdrawn` was sent); it can no longer be read',
  }),
  toldAt: DateTime('When you were told (the `public_report.published` event)'),
});

export const NamedReportsPage = Envelope(
  Type.Object({
    data: Type.Array(NamedReportListed),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);

export const NamedReportParams = Type.Object({ id: Type.String({ description: 'Public report id (uuid)' }) });

export const NamedReportResponse = Envelope(
  Type.Object({
    report: Type.Object({
      id: Type.String({ format: 'uuid' }),
      reference: Reference,
      fraudType: Type.String(),
      fraudReason: Type.String({
        description: 'What happened, in the sender’s words, as search shows it (long numbers and e-mail addresses masked)',
      }),
      financialInstitution: Type.String(),
      eventDate: DateTime(),
      publishedAt: DateTime(),
      identifiers: Type.Array(
        Type.Object({
          label: Type.String(),
          value: Nullable(Type.String({ description: 'In clear; null if it could not be opened (the operators are told)' })),
        }),
        { description: 'How the sender said to recognise whoever cheated them: an account, a phone, …' },
      ),
    }),
  }),
);
