/**
 * The Redflag API client: every path, body and answer typed from the service's own OpenAPI document
 * (`schema.d.ts`, generated; `npm run client:generate` refreshes it). Programs pass an API key; the
 * desk in a browser passes none and rides on the session cookie.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };
export type RedflagClient = Client<paths>;

/** The error envelope every failed call answers: `{ success:false, message, data:{ code, requestId, errors? } }`. */
export interface ApiError {
  success: false;
  message: string;
  data: { code: string; requestId: string; errors?: { field: string; message: string }[] };
}

export interface ClientOptions {
  /** Where the service is, e.g. `https://redflag.example.ng`; the browser desk passes its own origin. */
  baseUrl: string;
  /** For programs; never in a browser (the desk uses the session cookie). */
  apiKey?: string;
  fetch?: typeof globalThis.fetch;
}

export function createRedflagClient({ baseUrl, apiKey, fetch }: ClientOptions): RedflagClient {
  const client = createClient<paths>({
    baseUrl,
    ...(fetch ? { fetch } : {}),
    // Cookies go with same-origin requests only; an API key is a header.
    credentials: 'same-origin',
  });
  if (apiKey) client.use(apiKeyHeader(apiKey));
  return client;
}

function apiKeyHeader(apiKey: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('x-api-key', apiKey);
      return request;
    },
  };
}

/** The field errors of a 400 as `{ "identifiers/0/value": "message" }`, to show beside each field. */
export function fieldErrors(error: unknown): Record<string, string> {
  const errors = (error as Partial<ApiError> | undefined)?.data?.errors ?? [];
  return Object.fromEntries(errors.map((e) => [e.field, e.message]));
}

type UploadPath = '/api/v1/external/uploads' | '/api/v1/public/uploads' | '/api/v1/external/screenings';
/** What an upload answers: the file's id and its stable reference URL, to put in `attachments`. */
export type Uploaded = paths['/api/v1/external/uploads']['post']['responses'][201]['content']['application/json'];
/** What a screening file's upload answers: the job, to follow with `GET /api/v1/external/screenings/{id}`. */
export type ScreeningAccepted = paths['/api/v1/external/screenings']['post']['responses'][202]['content']['application/json'];
type UploadAnswer<P extends UploadPath> = P extends '/api/v1/external/screenings' ? ScreeningAccepted : Uploaded;

/**
 * Uploads one file (multipart field `file`): evidence, or a customer file to screen. Reports each
 * byte sent. A browser helper: fetch cannot report upload progress, XMLHttpRequest can, so this one
 * call does not go through openapi-fetch. The answer has the client's own shape: `{ data }` or `{ error }`.
 */
export function uploadFile<P extends UploadPath>(
  baseUrl: string,
  path: P,
  file: Blob,
  onProgress?: (sent: number, total: number) => void,
): Promise<{ data?: UploadAnswer<P>; error?: ApiError }> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open('POST', new URL(path, baseUrl));
    request.withCredentials = false; // same origin: the session cookie goes anyway, never to another site
    request.responseType = 'json';
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress?.(event.loaded, event.total);
    });
    request.addEventListener('load', () => {
      const body = request.response as UploadAnswer<P> | ApiError | null;
      if (request.status >= 200 && request.status < 300 && body?.success) resolve({ data: body as UploadAnswer<P> });
      else resolve({ error: (body as ApiError | null) ?? networkError(`The service answered ${request.status}.`) });
    });
    const failed = () => resolve({ error: networkError('The connection failed before the file was sent.') });
    request.addEventListener('error', failed);
    request.addEventListener('abort', failed);
    const form = new FormData();
    form.append('file', file);
    request.send(form);
  });
}

function networkError(message: string): ApiError {
  return { success: false, message, data: { code: 'NETWORK_ERROR', requestId: '' } };
}

/**
 * The stable reference URL of an attached file, from the signed download link a report shows
 * (`<public URL>/api/v1/files/<id>?expires…`): a draft edit names the files it keeps by reference.
 */
export function attachmentReference(downloadLink: string): string | undefined {
  const match = /^(.*)\/api\/v1\/files\/([0-9a-f-]{36})(?:\?|$)/i.exec(downloadLink);
  return match ? `${match[1]}/api/v1/external/uploads/${match[2]}` : undefined;
}
