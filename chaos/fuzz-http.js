// One HTTP/1.1 exchange over a raw TCP socket: the fuzzer must be able to send what no HTTP
// client library would (broken percent-encodings, odd methods, NUL bytes in a header, a request
// line Node's parser refuses) and still read whatever comes back, including Node's own answers.
import net from 'node:net';

/**
 * Sends `head` (the request line and headers, without the blank line) and `body`, with
 * `Connection: close`, and reads the first response. Resolves `{ status, headers, body }`, or
 * `{ status: 0, error }` when the connection ended without a response.
 */
export function exchange({ host, port, head, body = Buffer.alloc(0), timeoutMs = 15_000 }) {
  return new Promise((resolve) => {
    const chunks = [];
    let settled = false;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(result);
    };
    const socket = net.connect({ host, port });
    socket.setTimeout(timeoutMs, () => finish({ status: 0, error: 'timeout', ...parse(Buffer.concat(chunks)) }));
    socket.on('connect', () => {
      socket.write(Buffer.concat([Buffer.from(`${head}\r\nconnection: close\r\n\r\n`, 'latin1'), body]));
    });
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const parsed = parse(Buffer.concat(chunks));
      if (parsed.complete) finish(parsed);
    });
    // A reset after the response was written still leaves the response readable.
    socket.on('error', (err) => finish({ error: err.code ?? err.message, ...parse(Buffer.concat(chunks)) }));
    socket.on('end', () => finish(parse(Buffer.concat(chunks))));
  });
}

/** Parses the first response in `raw`; `complete` once its body is all there. */
export function parse(raw) {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, complete: false, headers: {}, body: '' };
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  // An interim answer (100 Continue to `Expect`) is followed by the real one.
  if (status >= 100 && status < 200 && status !== 101) return parse(raw.subarray(end + 4));
  const headers = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let rest = raw.subarray(end + 4);
  let complete = false;
  if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
    const decoded = dechunk(rest);
    complete = decoded.complete;
    rest = decoded.body;
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    complete = rest.length >= length;
    rest = rest.subarray(0, length);
  }
  // 101, 204 and 304 have no body.
  if (status === 101 || status === 204 || status === 304) complete = true;
  return { status, headers, body: rest.toString('utf8'), complete };
}

function dechunk(raw) {
  const parts = [];
  let offset = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', offset);
    if (lineEnd < 0) return { body: Buffer.concat(parts), complete: false };
    const size = Number.parseInt(raw.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return { body: Buffer.concat(parts), complete: false };
    if (size === 0) return { body: Buffer.concat(parts), complete: true };
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
