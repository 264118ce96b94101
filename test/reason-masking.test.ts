import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskFraudReason } from '../src/modules/reports/reason-masking.js';

describe('maskFraudReason', () => {
  it('masks phones, BVNs, NINs, NUBANs and e-mail addresses however they are written', () => {
    expect(
      maskFraudReason(
        'Call 0803 123 4567 or +234-803-123-4567, BVN 22123456789, NIN 71234567890, acct 0010246780_access-bank, mail John.Doe@Example.com.',
      ),
    ).toBe(
      'Call *********67 or ***********67, BVN *********89, NIN *********90, acct ********80_access-bank, mail J***@Example.com.',
    );
    expect(maskFraudReason('phone:08031234567.')).toBe('phone:*********67.');
  });

  it('masks a number written with brackets, spaces of any kind, invisible characters or other digits', () => {
    // Each is the phone search finds as +2348031234567: the same secret, so masked the same.
    for (const written of [
      '(0803) 123 4567',
      '+234 (803) 123-4567',
      '+234 (0) 803 123 4567',
      '０８０３１２３４５６７',
      '0803\u00a0123\u00a04567',
      '0803\u202f123\u202f4567',
      '0803\u200b1234567',
      '0803\u2060123\u200d4567',
      '0803/123/4567',
      '[0803] 123 4567',
      '٠٨٠٣١٢٣٤٥٦٧',
    ]) {
      const masked = maskFraudReason(`called from ${written} twice`);
      expect(masked, written).toMatch(/^called from [+(]?\*{9,12}\p{Nd}{2} twice$/u);
    }
  });

  it('leaves dates, amounts and short references as written', () => {
    const text = 'Lost ₦250,000 (1500000 naira) on 2026-11-23 at 14:05, ticket 12345678, 3 victims.';
    expect(maskFraudReason(text)).toBe(text);
    for (const range of ['between 2026-11-01 - 2026-11-05', 'from 01.11.2026 – 05.11.2026', 'on 01/11/2026 and 05/11/2026']) {
      expect(maskFraudReason(range)).toBe(range);
    }
  });

  it('never leaves a run of ten digits of any identifier in the masked text', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.stringMatching(/^\d{10,13}$/),
        fc.constantFrom('', ' ', '-', '.', ') ', '\u00a0', '\u200b', '\u2013', '/'),
        fc.boolean(),
        fc.string({ maxLength: 40 }),
        (before, number, separator, fullWidth, after) => {
          const digits = fullWidth ? number.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d))) : number;
          const written = digits.replace(/(\p{Nd}{3})(?=\p{Nd})/gu, `$1${separator}`);
          const masked = maskFraudReason(`${before} ${written} ${after}`);
          expect(masked.replace(/\P{Nd}/gu, '')).not.toContain(digits.slice(0, -2));
        },
      ),
    );
  });
});
