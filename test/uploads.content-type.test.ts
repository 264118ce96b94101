import { describe, expect, it } from 'vitest';
import { maskEmail, maskName, maskPhone } from '../src/modules/public-reports/contact-details.js';
import { checkStructure, sniffContentType } from '../src/modules/uploads/content-type.js';
import { samples } from './helpers/uploads.js';

const riff = (form: string, chunk: string) => Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4, 1), Buffer.from(form + chunk)]);

describe('sniffContentType', () => {
  it('reads the four accepted signatures at the very start only', () => {
    expect(sniffContentType(Buffer.from('%PDF-1.4\n'))).toEqual({ ok: true, type: 'application/pdf' });
    expect(sniffContentType(riff('WEBP', 'VP8X'))).toEqual({ ok: true, type: 'image/webp' });
    // A PDF signature later in the file (a polyglot's trick) does not count.
    expect(sniffContentType(Buffer.from('MZ\x90\x00%PDF-1.4')).ok).toBe(false);
    expect(sniffContentType(Buffer.from(' %PDF-1.4')).ok).toBe(false);
  });

  it('refuses other RIFF containers and truncated signatures', () => {
    expect(sniffContentType(riff('WAVE', 'fmt ')).ok).toBe(false);
    expect(sniffContentType(riff('WEBP', 'XXXX')).ok).toBe(false);
    expect(sniffContentType(Buffer.from([0x89, 0x50, 0x4e, 0x47])).ok).toBe(false);
    expect(sniffContentType(Buffer.from([0xff, 0xd8])).ok).toBe(false);
  });

  it('names executables in the refusal', () => {
    const macho = sniffContentType(Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]));
    expect(macho).toEqual({ ok: false, message: expect.stringMatching(/^a Mach-O executable is not accepted/) });
  });
});

describe('masking', () => {
  it('keeps the first letter and the domain of an e-mail address', () => {
    expect(maskEmail('john.doe@example.com')).toBe('j***@example.com');
    expect(maskEmail('a@b.ng')).toBe('a***@b.ng');
  });

  it('keeps only the initials of a name', () => {
    expect(maskName('Adaeze  Okafor')).toBe('A*** O***');
    expect(maskName('Émilie')).toBe('É***');
  });

  it('keeps only the country calling code and the last two digits of a phone number', () => {
    expect(maskPhone('+2348031234567')).toBe('+234****67');
    expect(maskPhone('+442079460958')).toBe('+44****58');
    expect(maskPhone('+14155552671')).toBe('+1****71');
  });
});

describe('checkStructure', () => {
  const pdf = (body: string) => Buffer.from(`%PDF-1.7\n1 0 obj\n<<${body}>>\nendobj\n%%EOF\n`, 'latin1');

  it('accepts a PDF that ends with its trailer and has no active content', async () => {
    expect(await checkStructure('application/pdf', pdf('/Type /Catalog /JSONData 1'))).toEqual({ ok: true });
  });

  it('refuses polyglots: a PDF header on a web page and an executable, with no trailer', async () => {
    const polyglot = Buffer.from('%PDF-1.4\n<html><script>alert(1)</script></html>MZ\x90\x00PE\x00\x00', 'latin1');
    expect(await checkStructure('application/pdf', polyglot)).toEqual({
      ok: false,
      message: expect.stringContaining('its end is missing'),
    });
  });

  it('does not mistake stream data for a name', async () => {
    const data = Buffer.from('x/JS y/JavaScript z', 'latin1');
    const withStream = Buffer.concat([
      Buffer.from('%PDF-1.7\n1 0 obj\n<< /Length 19 >>\nstream\n'),
      data,
      Buffer.from('\nendstream\nendobj\n%%EOF\n'),
    ]);
    expect(await checkStructure('application/pdf', withStream)).toEqual({ ok: true });
  });

  it('refuses scripts, launch, URI, form-submit and import actions, additional actions and embedded files', async () => {
    const markers = [
      '/JavaScript 3 0 R',
      '/JS (x)',
      '/OpenAction << /S /Launch /F (cmd.exe) >>',
      '/A << /S /URI /URI (http://example.invalid) >>',
      '/A << /S /SubmitForm /F (http://example.invalid) >>',
      '/A << /S /ImportData /F (data.fdf) >>',
      '/AA << /O 4 0 R >>',
      '/Names << /EmbeddedFiles 3 0 R >>',
      '/Type /EmbeddedFile',
      '/RichMedia 5 0 R',
      '/Kids [ [ << /S /JavaScript >> ] ]',
    ];
    for (const marker of markers) {
      expect(await checkStructure('application/pdf', pdf(marker)), marker).toMatchObject({
        ok: false,
        message: expect.stringContaining('active content'),
      });
    }
  });

  it('refuses a PDF it cannot parse and an encrypted one', async () => {
    expect((await checkStructure('application/pdf', pdf('/Type /Catalog /Broken [ (unclosed '))).ok).toBe(false);
    const encrypted = Buffer.from(
      '%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R /Encrypt 2 0 R >>\n%%EOF\n',
      'latin1',
    );
    expect(await checkStructure('application/pdf', encrypted)).toMatchObject({
      ok: false,
      message: expect.stringContaining('encrypted'),
    });
  });

  it('accepts sound images of each type', async () => {
    for (const [type, sample] of [
      ['image/png', samples.png()],
      ['image/jpeg', samples.jpeg()],
      ['image/webp', samples.webp()],
    ] as const) {
      expect(await checkStructure(type, sample), type).toEqual({ ok: true });
    }
  });

  it('refuses a PNG with something after its IEND or a corrupt chunk, and a WebP whose length lies', async () => {
    const png = samples.png();
    expect((await checkStructure('image/png', Buffer.concat([png, Buffer.from('<?php system($_GET[0]); ?>')]))).ok).toBe(false);
    const corrupt = Buffer.from(png);
    corrupt[40] = (corrupt[40] as number) ^ 1;
    expect(await checkStructure('image/png', corrupt)).toMatchObject({ ok: false, message: expect.stringContaining('CRC') });
    const webp = samples.webp();
    expect((await checkStructure('image/webp', Buffer.concat([webp, Buffer.alloc(64)]))).ok).toBe(false);
  });

  it('walks a JPEG to its end marker: truncated, junk between segments, or markup in a comment is refused', async () => {
    const jpeg = samples.jpeg();
    expect((await checkStructure('image/jpeg', jpeg.subarray(0, jpeg.length - 2))).ok).toBe(false);
    expect(
      (await checkStructure('image/jpeg', Buffer.concat([jpeg.subarray(0, 2), Buffer.from('junk'), jpeg.subarray(2)]))).ok,
    ).toBe(false);
    const html = Buffer.from('<html><script>alert(1)</script>');
    const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0, html.length + 2]), html]);
    expect(await checkStructure('image/jpeg', Buffer.concat([jpeg.subarray(0, 2), comment, jpeg.subarray(2)]))).toMatchObject({
      ok: false,
      message: expect.stringContaining('web page'),
    });
    // What a phone appends after EOI (maker notes) is allowed.
    expect(await checkStructure('image/jpeg', Buffer.concat([jpeg, Buffer.from('SEFHmaker notes')]))).toEqual({ ok: true });
  });
});
