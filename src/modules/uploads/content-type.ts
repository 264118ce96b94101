import { checkJpeg, checkPng, checkWebp, hidesZip } from './structure/images.js';

/**
 * What an evidence file is, decided by its first bytes alone: the name and the declared type are
 * the sender's word and are ignored. Four signatures, checked by hand: the `file-type` package knows
 * hundreds of formats, but an allow-list of four needs only these lines, and an unknown or executable
 * file is refused either way.
 */
export const ACCEPTED_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp'] as const;
export type AcceptedType = (typeof ACCEPTED_TYPES)[number];

export const EXTENSIONS: Record<AcceptedType, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** Bytes needed to tell every accepted type (WebP's chunk name ends at 16). */
export const SNIFF_BYTES = 16;

const ascii = (text: string) => Buffer.from(text, 'latin1');
const startsWith = (bytes: Buffer, prefix: Buffer, at = 0) =>
  bytes.length >= at + prefix.length && bytes.subarray(at, at + prefix.length).equals(prefix);

const PDF = ascii('%PDF-');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');
const WEBP_CHUNKS = [ascii('VP8 '), ascii('VP8L'), ascii('VP8X')];

/** Programs and scripts, named in the refusal so the sender knows why. */
const EXECUTABLES: Array<[string, Buffer]> = [
  ['an ELF executable', Buffer.from([0x7f, 0x45, 0x4c, 0x46])],
  ['a Windows executable', ascii('MZ')],
  ['a Mach-O executable', Buffer.from([0xfe, 0xed, 0xfa, 0xce])],
  ['a Mach-O executable', Buffer.from([0xfe, 0xed, 0xfa, 0xcf])],
  ['a Mach-O executable', Buffer.from([0xce, 0xfa, 0xed, 0xfe])],
  ['a Mach-O executable', Buffer.from([0xcf, 0xfa, 0xed, 0xfe])],
  ['a Mach-O or Java executable', Buffer.from([0xca, 0xfe, 0xba, 0xbe])],
  ['a script', ascii('#!')],
  ['a WebAssembly module', Buffer.from([0x00, 0x61, 0x73, 0x6d])],
];

export type Sniffed = { ok: true; type: AcceptedType } | { ok: false; message: string };

export function sniffContentType(head: Buffer): Sniffed {
  if (startsWith(head, PDF)) return { ok: true, type: 'application/pdf' };
  if (startsWith(head, PNG)) return { ok: true, type: 'image/png' };
  if (startsWith(head, JPEG)) return { ok: true, type: 'image/jpeg' };
  if (startsWith(head, RIFF) && startsWith(head, WEBP, 8) && WEBP_CHUNKS.some((chunk) => startsWith(head, chunk, 12))) {
    return { ok: true, type: 'image/webp' };
  }
  const executable = EXECUTABLES.find(([, magic]) => startsWith(head, magic));
  const what = executable ? `${executable[0]} is not accepted` : 'The file is not a PDF, PNG, JPEG or WebP';
  return { ok: false, message: `${what} (recognised by its contents, whatever its name); send a PDF, PNG, JPEG or WebP file` };
}

const PDF_EOF = ascii('%%EOF');

/**
 * The whole file holds up as the type its first bytes claim, checked by its structure
 * (`structure/`): a PDF ends with its %%EOF trailer, parses, and carries no scripts, actions that
 * launch, fetch or submit, or embedded files; an image's chunks or segments are intact to its end
 * marker, with no web page in its metadata; and no file hides a ZIP archive. This refuses polyglots
 * — a PDF header glued onto an executable, a JPEG that is also a web page and an archive — which a
 * reader on an analyst's desk might otherwise open as the other thing.
 */
export async function checkStructure(type: AcceptedType, bytes: Buffer): Promise<{ ok: true } | { ok: false; message: string }> {
  const refuse = (why: string) => ({
    ok: false as const,
    message: `${why}; send the document as a plain PDF, PNG, JPEG or WebP`,
  });
  if (hidesZip(bytes)) return refuse('The file also holds a ZIP archive');
  let verdict: { ok: true } | { ok: false; reason: string };
  switch (type) {
    case 'application/pdf':
      if (!bytes.subarray(Math.max(0, bytes.length - 1024)).includes(PDF_EOF))
        return refuse('The PDF is incomplete: its end is missing (was it cut short while being saved or sent?)');
      // pdf-lib is loaded with the first PDF, not at start-up (it is a large module to parse).
      verdict = await (await import('./structure/pdf.js')).checkPdf(bytes);
      break;
    case 'image/png':
      verdict = checkPng(bytes);
      break;
    case 'image/jpeg':
      verdict = checkJpeg(bytes);
      break;
    case 'image/webp':
      verdict = checkWebp(bytes);
      break;
  }
  return verdict.ok ? verdict : refuse(verdict.reason);
}
