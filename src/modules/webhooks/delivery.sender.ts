import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedTarget } from './url-guard.js';

export interface SendOutcome {
  statusCode: number | null;
  latencyMs: number;
  /** Null on a 2xx; otherwise why the attempt failed (never the body we sent). */
  error: string | null;
}

/** Longest wait for a receiver: connect, send and the response headers. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * POSTs one signed message to the address the guard resolved (the `lookup` below answers with it,
 * so the connection cannot go anywhere else), with the URL's own host name in Host and TLS SNI.
 * A redirect is a failure: it is never followed.
 */
export function sendWebhook(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<SendOutcome> {
  const started = performance.now();
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      resolve({ statusCode, latencyMs: Math.round(performance.now() - started), error });
    };
    const request = client.request(
      target.url,
      {
        method: 'POST',
        lookup: pinned,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Redflag-Webhooks/1',
        },
        signal: AbortSignal.timeout(timeoutMs),
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // The body is not read beyond draining it: only the status counts.
        response.resume();
        response.on('end', () => finish(status, status >= 200 && status < 300 ? null : `HTTP ${status}`));
        response.on('error', (err) => finish(status, err.message));
      },
    );
    request.on('error', (err: NodeJS.ErrnoException) => {
      finish(
        null,
        err.name === 'AbortError' || err.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (err.code ?? err.message),
      );
    });
    request.end(body);
  });
}
