import { describe, expect, it } from 'vitest';
import { maskEmail, maskPhone } from '../src/modules/public-reports/contact-details.js';
import { sniffContentType } from '../src/modules/uploads/content-type.js';

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

  it('keeps the country and network prefix and the last three digits of a phone number', () => {
    expect(maskPhone('+2348031234567')).toBe('+234803****567');
    expect(maskPhone('+442079460958')).toBe('+44207****958');
  });
});
