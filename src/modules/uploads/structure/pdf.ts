import { PDFArray, PDFDict, PDFName, type PDFObject, PDFParser, PDFRawStream, type PDFRef } from 'pdf-lib';

/**
 * Dictionary keys that make a PDF run, launch, fetch, send or carry something when it is opened:
 * scripts (/JS, /JavaScript name trees), additional actions on open/close/focus (/AA), embedded
 * files and their name tree, XFA forms, rich media.
 */
const FORBIDDEN_KEYS = [
  'JS',
  'JavaScript',
  'AA',
  'Launch',
  'SubmitForm',
  'ImportData',
  'URI',
  'EmbeddedFile',
  'EmbeddedFiles',
  'EF',
  'XFA',
  'RichMedia',
  'RichMediaContent',
];
/** Action types (/S) that do any of that, wherever the action sits (OpenAction, a link, a form field). */
const FORBIDDEN_ACTIONS = [
  'JavaScript',
  'Launch',
  'URI',
  'SubmitForm',
  'ImportData',
  'RichMediaExecute',
  'GoToE',
  'GoToR',
  'Rendition',
  'Sound',
  'Movie',
];
/** Object types that are attachments or media whatever key points at them. */
const FORBIDDEN_TYPES = ['EmbeddedFile', 'Filespec', 'RichMediaExecute'];

const keySet = new Set(FORBIDDEN_KEYS.map((name) => PDFName.of(name)));
const actionSet = new Set(FORBIDDEN_ACTIONS.map((name) => PDFName.of(name)));
const typeSet = new Set(FORBIDDEN_TYPES.map((name) => PDFName.of(name)));
const S = PDFName.of('S');
const OBJECTS_PER_TICK = 500;
const TYPE = PDFName.of('Type');

export type PdfVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Parses the whole file with pdf-lib's parser (every indirect object in file order, object streams
 * inflated, `#xx` escapes in names decoded, strings read as strings) and refuses it if any object
 * anywhere — referenced or not, overwritten by a later revision or not — carries active content.
 * Every object is inspected as the parser assigns it, so a second object with the same number
 * cannot hide the first. An encrypted PDF is refused: its objects cannot be read.
 */
export async function checkPdf(bytes: Uint8Array): Promise<PdfVerdict> {
  // Yields to the event loop every 500 objects: a 5 MiB file of tiny objects takes seconds of CPU.
  const parser = PDFParser.forBytesWithOptions(bytes, OBJECTS_PER_TICK, true, false);
  let found: string | undefined;
  const context = (parser as unknown as { context: { assign(ref: PDFRef, object: PDFObject): void } }).context;
  const assign = context.assign.bind(context);
  context.assign = (ref, object) => {
    found ??= activeContentIn(object);
    assign(ref, object);
  };
  try {
    const parsed = await parser.parseDocument();
    if (parsed.trailerInfo.Encrypt !== undefined) return { ok: false, reason: 'The PDF is encrypted' };
  } catch (error) {
    if (found) return { ok: false, reason: `The PDF has active content (${found})` };
    const why = error instanceof RangeError ? 'nested too deeply' : 'not well formed';
    return { ok: false, reason: `The PDF could not be read (${why})` };
  }
  return found ? { ok: false, reason: `The PDF has active content (${found})` } : { ok: true };
}

/** The first forbidden thing inside one object, as `/Name`, or undefined. */
function activeContentIn(root: PDFObject): string | undefined {
  const pending: PDFObject[] = [root];
  while (pending.length > 0) {
    const object = pending.pop();
    const dict = object instanceof PDFRawStream ? object.dict : object;
    if (dict instanceof PDFDict) {
      for (const [key, value] of dict.entries()) {
        if (keySet.has(key)) return key.asString();
        if (key === S && value instanceof PDFName && actionSet.has(value)) return value.asString();
        if (key === TYPE && value instanceof PDFName && typeSet.has(value)) return value.asString();
        pending.push(value);
      }
    } else if (object instanceof PDFArray) {
      pending.push(...object.asArray());
    }
  }
  return undefined;
}
