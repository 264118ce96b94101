import { Type } from 'typebox';
import { Envelope } from '../../http/envelope.js';
import { DateTime, StringEnum } from '../../http/schema-helpers.js';
import { ACCEPTED_TYPES } from './content-type.js';

/**
 * The multipart body, for the OpenAPI document only: the file is streamed by the handler, never
 * parsed into `request.body`, so this schema is not used to validate (see `documentedOnly`).
 */
export const UploadBody = Type.Object(
  {
    file: Type.Unsafe<unknown>({
      type: 'string',
      format: 'binary',
      description: 'One PDF, PNG, JPEG or WebP file, recognised by its contents (not its name or declared type)',
    }),
  },
  { required: ['file'], additionalProperties: false },
);

const uploadFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String({ description: 'Stable reference URL: put it in a report’s `attachments`' }),
  contentType: StringEnum(ACCEPTED_TYPES),
  size: Type.Integer({ description: 'Bytes' }),
  sha256: Type.String({ description: 'SHA-256 of the bytes, hex' }),
};

export const UploadResponse = Envelope(Type.Object(uploadFields));

export const UploadDetailResponse = Envelope(
  Type.Object({
    ...uploadFields,
    downloadUrl: Type.String({ description: 'Signed download URL; expires (15 minutes by default)' }),
    attached: Type.Boolean({ description: 'Whether a report holds it; unattached files are removed after 24 hours' }),
    createdAt: DateTime(),
  }),
);

export const UploadIdParams = Type.Object({ id: Type.String({ description: 'Upload id' }) });

export const DownloadQuery = Type.Object({
  expires: Type.Optional(Type.String({ description: 'Unix time after which the link no longer works' })),
  signature: Type.Optional(Type.String({ description: 'HMAC over id and expiry' })),
});

export const FileBytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The file, as uploaded' });
