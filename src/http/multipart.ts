import type { MultipartFile } from '@fastify/multipart';
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { AppError } from './errors.js';
import { validatorCompiler } from './validation.js';

/** A multipart body is documented in the schema, not validated: the handler streams it. */
export const documentedOnly: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

/** What the multipart reader threw, as the 4xx a caller can act on (never a 500 for a body they sent). */
export function multipartError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return AppError.validation([{ field: 'file', message: 'send exactly one file, in the field "file", and no other field' }]);
  }
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new AppError('PAYLOAD_TOO_LARGE', 'The file is too large');
  if (error instanceof Error) {
    return AppError.validation([{ field: 'file', message: `the multipart body could not be read (${error.message})` }]);
  }
  return error;
}

/** The one file of a multipart body, and a check that no other file follows it. */
export type OnlyFile = MultipartFile & {
  /**
   * Called once the file is read to its end: resolves when the body ends there, throws the 400
   * naming `file` when another file follows (busboy's file limit), which would otherwise be
   * dropped without a word while the first is taken for the whole upload.
   */
  noOtherFile(): Promise<void>;
};

/**
 * The one file of a multipart body, in the field `file`, as a stream: 415 for a body that is not
 * multipart, 400 naming `file` for one that cannot be read (no boundary, no file, another field).
 */
export async function fileOf(request: FastifyRequest, maxBytes: number): Promise<OnlyFile> {
  if (!request.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data, in the field "file"');
  }
  const files = request.files({ limits: { fileSize: maxBytes, files: 1 } });
  let part: MultipartFile | undefined;
  try {
    part = (await files.next()).value ?? undefined;
  } catch (error) {
    throw multipartError(error);
  }
  if (part?.fieldname !== 'file') {
    throw AppError.validation([{ field: 'file', message: 'send the CSV in the multipart field "file"' }]);
  }
  return Object.assign(part, {
    async noOtherFile() {
      let next: IteratorResult<MultipartFile>;
      try {
        next = await files.next();
      } catch (error) {
        throw multipartError(error);
      }
      if (!next.done) throw multipartError({ code: 'FST_FILES_LIMIT' });
    },
  });
}
