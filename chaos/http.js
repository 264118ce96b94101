// One HTTP exchange as the chaos runner judges it: status, time, and whether the body is the envelope.
import { randomInt, randomUUID } from 'node:crypto';

export async function call(baseUrl, method, url, { headers = {}, body, timeoutMs = 15_000 } = {}) {
  const startedAt = performance.now();
  try {
    const res = await fetch(baseUrl + url, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const envelope =
      res.status < 400
        ? json?.success === true
        : json?.success === false && typeof json.data?.code === 'string' && typeof json.data?.requestId === 'string';
    return {
      status: res.status,
      ms: performance.now() - startedAt,
      json,
      envelope,
      retryAfter: res.headers.get('retry-after'),
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  } catch (error) {
    // No HTTP answer at all: the process is gone, or closing its sockets.
    return { status: 0, ms: performance.now() - startedAt, error: error.cause?.code ?? error.name, envelope: true };
  }
}

/** A create body with identifiers of its own, so every report is distinct. */
export function reportBody() {
  return {
    fraudType: 'money_mule',
    fraudReason: 'Chaos run: account opened with forged documents, funds moved out within hours.',
    identifiers: [{ label: 'phone', value: `0803${String(randomInt(0, 10_000_000)).padStart(7, '0')}` }],
  };
}

export function createReport(baseUrl, apiKey, { key = randomUUID(), body = reportBody(), timeoutMs } = {}) {
  return call(baseUrl, 'POST', '/api/v1/external/reports', {
    headers: { 'x-api-key': apiKey, 'idempotency-key': key },
    body,
    timeoutMs,
  }).then((res) => ({ ...res, key, body }));
}
