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

  it('keeps the country and network prefix and the last three digits of a phone number', () => {
    expect(maskPhone('+2348031234567')).toBe('+234803****567');
    expect(maskPhone('+442079460958')).toBe('+44207****958');
  });
});

describe('checkStructure', () => {
  const pdf = (body: string) => Buffer.from(`%PDF-1.7\n1 0 obj\n<<${body}>>\nendobj\n%%EOF\n`, 'latin1');

  it('accepts a PDF that ends with its trailer and has no active content', () => {
    expect(checkStructure('application/pdf', pdf('/Type /Catalog /JSONData 1'))).toEqual({ ok: true });
  });

  it('refuses polyglots: a PDF header on a web page and an executable, with no trailer', () => {
    const polyglot = Buffer.from('%PDF-1.4\n<html><script>alert(1)</script></html>MZ\x90\x00PE\x00\x00', 'latin1');
    expect(checkStructure('application/pdf', polyglot)).toEqual({
      ok: false,
      message: expect.stringContaining('no %%EOF trailer'),
    });
  });

  it('does not mistake compressed stream data for a name', () => {
    const data = Buffer.from('x/JS y/JavaScript z', 'latin1');
    const withStream = Buffer.concat([
      Buffer.from('%PDF-1.7\n1 0 obj\n<< /Length 19 >>\nstream\n'),
      data,
      Buffer.from('\nendstream\nendobj\n%%EOF\n'),
    ]);
    expect(checkStructure('application/pdf', withStream)).toEqual({ ok: true });
  });

  it('refuses a PDF with scripts, launch actions or embedded files', () => {
    for (const marker of ['/JavaScript (app.alert(1))', '/JS (x)', '/Launch /F (cmd.exe)', '/EmbeddedFile 3 0 R']) {
      expect(checkStructure('application/pdf', pdf(marker)), marker).toMatchObject({
        ok: false,
        message: expect.stringContaining('active content'),
      });
    }
  });

  it('refuses a PNG with something after (or instead of) its IEND, and a WebP whose length lies', () => {
    const png = samples.png();
    expect(checkStructure('image/png', png)).toEqual({ ok: true });
    expect(checkStructure('image/png', Buffer.concat([png, Buffer.from('<?php system($_GET[0]); ?>')])).ok).toBe(false);
    const webp = samples.webp();
    expect(checkStructure('image/webp', webp)).toEqual({ ok: true });
    expect(checkStructure('image/webp', Buffer.concat([webp, Buffer.alloc(64)])).ok).toBe(false);
  });
});
