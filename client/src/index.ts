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
