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

  it('leaves dates, amounts and short references as written', () => {
    const text = 'Lost ₦250,000 (1500000 naira) on 2026-11-23 at 14:05, ticket 12345678, 3 victims.';
    expect(maskFraudReason(text)).toBe(text);
  });

  it('never leaves a run of ten digits of any identifier in the masked text', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.stringMatching(/^\d{10,13}$/),
        fc.constantFrom('', ' ', '-', '.'),
        fc.string({ maxLength: 40 }),
        (before, number, separator, after) => {
          const written = number.replace(/(\d{3})(?=\d)/g, `$1${separator}`);
          const masked = maskFraudReason(`${before} ${written} ${after}`);
          expect(masked.replace(/\D/g, '')).not.toContain(number.slice(0, -2));
        },
      ),
    );
  });
});
