import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** The `data` of our event types (see README "Watchlists and webhooks"). */
export interface EventData {
  watchlistEntry?: { id: string; label: string; ref: string | null };
  report?: { id: string; kind: string; fraudType: string; reportingCompany: string | null };
  publicReport?: Record<string, unknown>;
}

/** One request the receiver got, with whether each secret it knows verified it. */
export interface Received {
  id: string;
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: EventData };
  /** Secrets (by index in `secrets`) that verified the signature with the `standardwebhooks` package. */
  verifiedBy: number[];
  path: string;
}

/**
 * A real HTTP receiver on this engineer's port range (4700–4799), verifying every request with
 * the `standardwebhooks` npm package, an implementation independent of ours. `failNext(n)` makes
 * the next n requests answer 500.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const secrets: string[] = [];
  let failures = 0;
  /** Paths that always answer 500. */
  const failing = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const verifiedBy: number[] = [];
      secrets.forEach((secret, i) => {
        try {
          new Webhook(secret).verify(body, headers);
          verifiedBy.push(i);
        } catch {
          // Not signed with this secret.
        }
      });
      if (failing.has(req.url ?? '') || failures > 0) {
        if (!failing.has(req.url ?? '')) failures--;
        res.statusCode = 500;
        res.end('not now');
        return;
      }
      received.push({ id: headers['webhook-id'] ?? '', headers, body, json: JSON.parse(body), verifiedBy, path: req.url ?? '' });
      res.statusCode = 204;
      res.end();
    });
  });
  const port = await listenInRange(server);
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    port,
    received,
    secrets,
    failNext(n: number) {
      failures = n;
    },
    failing,
    /** What arrived at `path`, by event type. */
    at(path: string, type?: string) {
      return received.filter((r) => r.path === path && (type === undefined || r.json.type === type));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Listens on the first free port from 4700 to 4799 (test files running side by side take different ones). */
async function listenInRange(server: http.Server): Promise<number> {
  const start = 4700 + Math.floor(Math.random() * 100);
  for (let i = 0; i < 100; i++) {
    const port = 4700 + ((start - 4700 + i) % 100);
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) return (server.address() as AddressInfo).port;
  }
  throw new Error('no free port in 4700-4799');
}
