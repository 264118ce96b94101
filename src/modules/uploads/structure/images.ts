import zlib from 'node:zlib';

/**
 * Images checked by their structure, not their first bytes: every PNG chunk's CRC up to IEND with
 * nothing after it, every JPEG segment up to EOI, every WebP chunk inside its RIFF size. Around the
 * image data, metadata (comments, text chunks, EXIF/XMP) must not hold a web page, and no ZIP archive
 * may be hidden anywhere: that is how an image is made to be an HTML page or an archive as well
 * (a polyglot) for whichever program opens it next.
 */
export type ImageVerdict = { ok: true } | { ok: false; reason: string };

const refuse = (reason: string): ImageVerdict => ({ ok: false, reason });

/** Markup that makes bytes a web page when a browser is persuaded to render them. */
const MARKUP = /<(?:script|html|body|iframe|svg|object|embed|!doctype|meta\s|a\s+href)/i;
const hasMarkup = (bytes: Uint8Array) => MARKUP.test(Buffer.from(bytes).toString('latin1'));

/**
 * A ZIP archive ends with an end-of-central-directory record (`PK\5\6`, in the last 64 KiB) just
 * after its central directory (`PK\1\2`); unzip finds both even after an image. A random match of
 * the 4-byte signature alone happens in image data now and then, so both must line up.
 */
export function hidesZip(bytes: Buffer): boolean {
  const from = Math.max(0, bytes.length - 65_557);
  for (let at = bytes.indexOf('PK\x05\x06', from, 'latin1'); at !== -1; at = bytes.indexOf('PK\x05\x06', at + 1, 'latin1')) {
    if (at + 22 > bytes.length) continue;
    const size = bytes.readUInt32LE(at + 12);
    const offset = bytes.readUInt32LE(at + 16);
    const directoryAt = [at - size, offset].filter((p) => p >= 0 && p + 4 <= bytes.length);
    if (directoryAt.some((p) => bytes.toString('latin1', p, p + 4) === 'PK\x01\x02')) return true;
    if (size === 0) return true; // an empty archive: nothing else explains the record
  }
  return false;
}

const PNG_SIGNATURE_BYTES = 8;

export function checkPng(bytes: Buffer): ImageVerdict {
  let at = PNG_SIGNATURE_BYTES;
  let first = true;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length)
      return refuse(`The PNG chunk ${JSON.stringify(type)} runs past the end of the file`);
    if (first && (type !== 'IHDR' || length !== 13)) return refuse('The PNG does not start with its header chunk');
    first = false;
    const crc = zlib.crc32(bytes.subarray(at + 4, at + 8 + length));
    if (crc !== bytes.readUInt32BE(at + 8 + length)) return refuse(`The PNG chunk ${JSON.stringify(type)} is corrupt (CRC)`);
    if (type !== 'IDAT' && hasMarkup(bytes.subarray(at + 8, at + 8 + length)))
      return refuse('The PNG carries a web page in its metadata');
    at = end;
    if (type === 'IEND') {
      return at === bytes.length ? { ok: true } : refuse('The PNG has data after its end (IEND)');
    }
  }
  return refuse('The PNG ends before its IEND chunk');
}

const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);
const isStandalone = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

/**
 * Walks the JPEG's segments (SOI, tables, frame, scans) to EOI. Entropy-coded data after a scan
 * header is skipped to the next marker (0xFF not followed by 0x00 or a restart marker). Cameras
 * and phones append data after EOI (maker notes, a motion photo's video), so that is allowed —
 * unless it is a web page or an archive.
 */
export function checkJpeg(bytes: Buffer): ImageVerdict {
  let at = 2;
  let sawFrame = false;
  while (at < bytes.length) {
    if (bytes[at] !== 0xff) return refuse('The JPEG has bytes between its segments');
    while (bytes[at] === 0xff) at++;
    const marker = bytes[at++];
    if (marker === undefined) break;
    if (marker === 0xd9) {
      if (!sawFrame) return refuse('The JPEG has no image frame');
      const trailer = bytes.subarray(at);
      return hasMarkup(trailer) ? refuse('The JPEG carries a web page after its end') : { ok: true };
    }
    if (isStandalone(marker)) continue;
    if (at + 2 > bytes.length) break;
    const length = bytes.readUInt16BE(at);
    if (length < 2 || at + length > bytes.length) return refuse('The JPEG has a segment that runs past the end of the file');
    const data = bytes.subarray(at + 2, at + length);
    if (((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe) && hasMarkup(data)) {
      return refuse('The JPEG carries a web page in its metadata');
    }
    if (SOF_MARKERS.has(marker)) sawFrame = true;
    at += length;
    if (marker === 0xda) at = nextMarkerAfterScan(bytes, at);
  }
  return refuse('The JPEG ends before its end marker (EOI)');
}

function nextMarkerAfterScan(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(0xff, from); at !== -1 && at + 1 < bytes.length; at = bytes.indexOf(0xff, at + 1)) {
    const next = bytes[at + 1] as number;
    if (next !== 0x00 && next !== 0xff && !isStandalone(next)) return at;
  }
  return bytes.length;
}

/** A WebP: a RIFF whose size is the file's, chunks that tile it exactly, a real VP8/VP8L/VP8X first chunk. */
export function checkWebp(bytes: Buffer): ImageVerdict {
  const riffEnd = bytes.readUInt32LE(4) + 8;
  // RIFF pads chunks to an even length, so one byte more is allowed.
  if (riffEnd !== bytes.length && riffEnd + 1 !== bytes.length) return refuse('The WebP length does not match its header');
  let at = 12;
  let first = true;
  while (at < riffEnd) {
    if (at + 8 > riffEnd) return refuse('The WebP ends inside a chunk header');
    const type = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const data = bytes.subarray(at + 8, at + 8 + size);
    if (at + 8 + size > riffEnd) return refuse(`The WebP chunk ${JSON.stringify(type)} runs past the end of the file`);
    if (first && !validFirstChunk(type, data)) return refuse('The WebP does not start with an image chunk');
    first = false;
    if (!['VP8 ', 'VP8L', 'ALPH', 'ANMF'].includes(type) && hasMarkup(data))
      return refuse('The WebP carries a web page in its metadata');
    at += 8 + size + (size % 2);
  }
  return at === riffEnd || at === riffEnd + 1 ? { ok: true } : refuse('The WebP chunks do not fill the file');
}

function validFirstChunk(type: string, data: Buffer): boolean {
  switch (type) {
    case 'VP8 ':
      return data.length >= 10 && data[3] === 0x9d && data[4] === 0x01 && data[5] === 0x2a;
    case 'VP8L':
      return data.length >= 5 && data[0] === 0x2f;
    case 'VP8X':
      return data.length >= 10;
    default:
      return false;
  }
}
