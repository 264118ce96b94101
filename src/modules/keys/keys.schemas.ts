import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { Nullable, StringEnum } from '../../http/schema-helpers.js';
import { MAX_EXPIRES_IN_DAYS, MAX_GRACE_HOURS } from './keys.service.js';

const DateTime = Type.String({ format: 'date-time' });

/** Never the hash, never the key: the prefix is enough to tell keys apart. */
export const ApiKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  role: StringEnum(['company', 'operator'] as const),
  companyId: Nullable(Type.String({ format: 'uuid' })),
  operatorId: Nullable(Type.String({ format: 'uuid' })),
  prefix: Type.String({ description: 'The first 10 characters of the key' }),
  status: StringEnum(['active', 'expired', 'revoked'] as const),
  createdAt: DateTime,
  expiresAt: Nullable(DateTime),
  revokedAt: Nullable(DateTime),
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'Recorded within a few seconds of use' })),
  replacedBy: Nullable(Type.String({ format: 'uuid', description: 'Set by rotation: the key that replaces this one' })),
});

export const KeyIdParams = Type.Object({ keyId: Type.String({ description: 'API key id (uuid)' }) });

const ExpiresInDays = Type.Integer({
  minimum: 1,
  maximum: MAX_EXPIRES_IN_DAYS,
  description: 'The key stops working after this many days (default: never)',
});

export const IssueKeyBody = Type.Object({ expiresInDays: Type.Optional(ExpiresInDays) }, { additionalProperties: false });

export const RotateKeyBody = Type.Object(
  {
    graceHours: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: MAX_GRACE_HOURS,
        description: 'How long the old key keeps working (default 24; 0 ends it now)',
      }),
    ),
    expiresInDays: Type.Optional(ExpiresInDays),
  },
  { additionalProperties: false },
);

const NewKey = {
  key: ApiKey,
  apiKey: Type.String({ description: 'The new key. Shown this once: it is stored only as a hash' }),
};

export const IssueKeyResponse = Envelope(Type.Object(NewKey));
export const RotateKeyResponse = Envelope(Type.Object({ ...NewKey, previous: ApiKey }));
export const KeyResponse = Envelope(Type.Object({ key: ApiKey }));
export const KeyListResponse = Envelope(Type.Object({ keys: Type.Array(ApiKey) }));

export const WhoAmIResponse = Envelope(
  Type.Object({
    role: StringEnum(['company', 'operator'] as const),
    keyId: Nullable(Type.String({ format: 'uuid', description: 'null when a signed-in user calls' })),
    userId: Nullable(Type.String({ format: 'uuid', description: 'The signed-in user; null for an API key' })),
    rateLimitPerMinute: Type.Integer(),
    company: Nullable(Type.Object({ id: Type.String({ format: 'uuid' }), businessName: Type.String() })),
    operator: Nullable(Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() })),
  }),
);
