// Receive Redflag's webhooks: register an endpoint (its secret is shown once), then verify every
// request with the Standard Webhooks library before trusting it. A request that fails is refused.
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { createRedflagClient } from '../client/src/index.js';

export interface RedflagEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The event, if `secret` signed this very body (and it is fresh); throws otherwise. */
export function verifyRedflagWebhook(secret: string, body: string, headers: Record<string, string>): RedflagEvent {
  return new Webhook(secret).verify(body, headers) as RedflagEvent;
}

/** A receiver on `port` that answers 204 to signed requests and 401 to anything else. */
export function startReceiver(port: number, secret: () => string, onEvent: (event: RedflagEvent) => void) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      try {
        onEvent(verifyRedflagWebhook(secret(), Buffer.concat(chunks).toString('utf8'), headers));
        res.writeHead(204).end();
      } catch {
        res.writeHead(401).end();
      }
    });
  });
  return new Promise<http.Server>((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** Registers `url` for watchlist matches and returns the endpoint's signing secret (shown only now). */
export async function registerEndpoint(baseUrl: string, apiKey: string, url: string): Promise<string> {
  const redflag = createRedflagClient({ baseUrl, apiKey });
  const { data, error } = await redflag.POST('/api/v1/external/webhooks', { body: { url, events: ['watchlist.match'] } });
  if (!data) throw new Error(`could not register the endpoint: ${error?.message}`);
  return data.data.webhook.secret;
}
