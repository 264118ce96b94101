import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `bytes` on a fresh TCP connection and reads until the server closes it, for what
 * `inject` cannot reach: Node's own answers to malformed HTTP, and several requests on one
 * kept-alive connection. Each `write` after the first waits for the previous response, or with
 * `pipeline` only for `beforeWrite(i)`.
 */
export function rawExchange(
  port: number,
  writes: Array<string | Buffer>,
  options: { pipeline?: boolean; beforeWrite?: (i: number) => Promise<void> } = {},
) {
  return new Promise<RawResponse[]>((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let index = 0;
    const writeNext = async () => {
      if (index >= writes.length) return;
      const i = index++;
      await options.beforeWrite?.(i);
      socket.write(writes[i] as string | Buffer);
      if (options.pipeline) void writeNext();
    };
    socket.on('connect', () => void writeNext());
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (!options.pipeline && parseResponses(received).length >= index) void writeNext();
    });
    socket.on('error', (error) => (parseResponses(received).length ? resolve(parseResponses(received)) : reject(error)));
    socket.on('close', () => resolve(parseResponses(received)));
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
  });
}

/** Every complete response in `raw` (bodies sized by content-length, as every answer here is). */
export function parseResponses(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return responses;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (rest.length < end + 4 + length) return responses;
    responses.push({
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: rest.subarray(end + 4, end + 4 + length).toString('utf8'),
    });
    rest = rest.subarray(end + 4 + length);
  }
}
