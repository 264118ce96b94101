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
const PNG_IEND = Buffer.from([0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
/** PDF features that run or launch something: evidence is read, never executed. */
const PDF_ACTIVE = ['/JavaScript', '/JS', '/Launch', '/EmbeddedFile', '/RichMedia', '/XFA'].map(ascii);

/**
 * The whole file holds up as the type its first bytes claim: a PDF ends with its %%EOF trailer and
 * carries no scripts, launch actions or embedded files; a PNG ends with IEND; a WebP's RIFF length
 * is the file's. This refuses polyglots — a PDF header glued onto an executable or a web page —
 * which a PDF reader on an analyst's desk might otherwise open. (JPEG is left to its header:
 * phones legitimately append data after the image.)
 */
export function checkStructure(type: AcceptedType, bytes: Buffer): { ok: true } | { ok: false; message: string } {
  const refuse = (why: string) => ({
    ok: false as const,
    message: `${why}; send the document as a plain PDF, PNG, JPEG or WebP`,
  });
  switch (type) {
    case 'application/pdf': {
      if (!bytes.subarray(Math.max(0, bytes.length - 1024)).includes(PDF_EOF))
        return refuse('The PDF is incomplete (no %%EOF trailer)');
      const syntax = [...outsideStreams(bytes)];
      const active = PDF_ACTIVE.find((marker) => syntax.some((part) => containsName(part, marker)));
      if (active) return refuse(`The PDF has active content (${active.toString('latin1')})`);
      return { ok: true };
    }
    case 'image/png':
      return bytes.subarray(bytes.length - PNG_IEND.length).equals(PNG_IEND)
        ? { ok: true }
        : refuse('The PNG does not end where a PNG ends');
    case 'image/webp': {
      const declared = bytes.length >= 8 ? bytes.readUInt32LE(4) + 8 : -1;
      // RIFF pads chunks to an even length, so one byte more is allowed.
      return declared === bytes.length || declared + 1 === bytes.length
        ? { ok: true }
        : refuse('The WebP length does not match its header');
    }
    case 'image/jpeg':
      return { ok: true };
  }
}

const STREAM = ascii('stream');
const ENDSTREAM = ascii('endstream');
const END = ascii('end');

/**
 * The object syntax of a PDF, without the contents of its streams: those are compressed data in
 * which any short byte sequence (`/JS`) turns up by chance, so only the dictionaries are searched.
 */
function* outsideStreams(bytes: Buffer): Generator<Buffer> {
  let at = 0;
  while (at < bytes.length) {
    let start = bytes.indexOf(STREAM, at);
    // `endstream` contains `stream`; only the opening keyword starts stream data.
    while (start >= END.length && bytes.subarray(start - END.length, start).equals(END)) start = bytes.indexOf(STREAM, start + 1);
    if (start === -1) {
      yield bytes.subarray(at);
      return;
    }
    yield bytes.subarray(at, start);
    const end = bytes.indexOf(ENDSTREAM, start + STREAM.length);
    if (end === -1) return;
    at = end + ENDSTREAM.length;
  }
}

/** A PDF name such as `/JS`, not the start of a longer one (`/JSON` is not `/JS`). */
function containsName(bytes: Buffer, name: Buffer): boolean {
  for (let at = bytes.indexOf(name); at !== -1; at = bytes.indexOf(name, at + 1)) {
    const next = bytes[at + name.length];
    if (next === undefined || !/[A-Za-z0-9]/.test(String.fromCharCode(next))) return true;
  }
  return false;
}
