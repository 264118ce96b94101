import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { Nullable, PageNumber, StringEnum } from '../../http/schema-helpers.js';
import { ApiKey } from '../keys/keys.schemas.js';
import { MAX_BUSINESS_NAME_LENGTH, MAX_PAGE_SIZE, MAX_RATE_LIMIT_PER_MINUTE } from './companies.service.js';

const DateTime = Type.String({ format: 'date-time' });

export const Company = Type.Object({
  id: Type.String({ format: 'uuid' }),
  businessName: Type.String(),
  status: StringEnum(['active', 'suspended'] as const),
  rateLimitPerMinute: Nullable(Type.Integer({ description: 'Requests a minute for each key; null = the service default' })),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const CompanyIdParams = Type.Object({
  companyId: Type.String({ description: 'Company id (uuid)' }),
});

export const CreateCompanyBody = Type.Object(
  {
    businessName: Type.String({ minLength: 1, maxLength: MAX_BUSINESS_NAME_LENGTH, pattern: '\\S' }),
    rateLimitPerMinute: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RATE_LIMIT_PER_MINUTE,
        description: 'Requests a minute for each of its keys (default: the service setting, 600)',
      }),
    ),
    allowDuplicate: Type.Optional(
      Type.Boolean({ description: 'Create it even if a company of this name exists (otherwise 409 COMPANY_NAME_TAKEN)' }),
    ),
  },
  { additionalProperties: false },
);

export const CreateCompanyResponse = Envelope(
  Type.Object({
    company: Company,
    key: ApiKey,
    apiKey: Type.String({ description: 'The new key. Shown this once: it is stored only as a hash' }),
  }),
);

export const ListCompaniesQuery = Type.Object({
  page: Type.Optional(PageNumber),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 })),
  status: Type.Optional(StringEnum(['active', 'suspended'] as const)),
});

export const ListCompaniesResponse = Envelope(
  Type.Object({
    data: Type.Array(Company),
    meta: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
  }),
);

export const CompanyResponse = Envelope(Type.Object({ company: Company }));
