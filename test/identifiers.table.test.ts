import { describe, expect, it } from 'vitest';
import { type IdentifierLabel, normalizeIdentifier, shippedBankDirectory } from '../src/identifiers/normalize.js';
import { nubanCheckDigit } from '../src/identifiers/nuban.js';

const banks = shippedBankDirectory();
const store = (label: IdentifierLabel, raw: string) => normalizeIdentifier(label, raw, { banks, purpose: 'store' });
const search = (label: IdentifierLabel, raw: string) => normalizeIdentifier(label, raw, { banks, purpose: 'search' });

const HINTS = ['0123456789_access-bank', '0803 123 4567', '+234 803 123 4567'];

/** Each label: [raw, normalised value] accepted, and [raw, message (or a fragment of it)] rejected. */
const TABLES: Record<IdentifierLabel, { accepted: [string, string][]; rejected: [string, string | RegExp][] }> = {
  account: {
    accepted: [
      ['0010246780_access-bank', '0010246780_access-bank'],
      ['5050114930_providus-bank', '5050114930_providus-bank'],
      ['5050114930_standard-chartered-bank', '5050114930_standard-chartered-bank'],
      ['5050114930_wema-bank', '5050114930_wema-bank'],
      ['5050114930_zenith-bank', '5050114930_zenith-bank'],
      ['0000014579_first-bank-of-nigeria', '0000014579_first-bank-of-nigeria'],
      [' 0010246780_ACCESS-BANK ', '0010246780_access-bank'],
      ['001-024-6780_access-bank', '0010246780_access-bank'],
      ['001 024 6780_access-bank', '0010246780_access-bank'],
      ['０010246780_access-bank', '0010246780_access-bank'],
      // Microfinance banks and mobile-money operators: no check digit computable, any 10 digits.
      ['1234567890_opay', '1234567890_opay'],
      ['9999999999_kuda-microfinance-bank', '9999999999_kuda-microfinance-bank'],
      // A space, dash, slash or colon in place of the underscore, as copied from a statement.
      ['0010246780 access-bank', '0010246780_access-bank'],
      ['0010246780 - Access-Bank', '0010246780_access-bank'],
      ['001 024 6780/access-bank', '0010246780_access-bank'],
      ['1234567890:9psb', '1234567890_9psb'],
    ],
    rejected: [
      [
        '0010246780',
        'Account must name its bank: write it as <10-digit account number>_<bank slug>, for example 0123456789_access-bank',
      ],
      ['0010246781_access-bank', 'Account number is not a valid NUBAN for Access Bank (its check digit does not match)'],
      ['5050114931_zenith-bank', 'Account number is not a valid NUBAN for Zenith Bank (its check digit does not match)'],
      ['001024678_access-bank', 'Account number must be 10 digits (NUBAN)'],
      ['00102467801_access-bank', 'Account number must be 10 digits (NUBAN)'],
      ['abcdefghij_access-bank', 'Account number must be 10 digits (NUBAN)'],
      ['0010246780_xyz', 'Unknown bank slug "xyz"; see GET /api/v1/meta-data/banks'],
      ['0010246780 xyz', 'Unknown bank slug "xyz"; see GET /api/v1/meta-data/banks'],
      ['00102467801 access-bank', 'Account number must be 10 digits (NUBAN)'],
      ['0010246781 access-bank', 'Account number is not a valid NUBAN for Access Bank (its check digit does not match)'],
      ['0010246780_Access Bank', 'Unknown bank slug; see GET /api/v1/meta-data/banks'],
      // Digits where the slug goes may be another identifier: never said back.
      ['0010246780_0010246781', 'Unknown bank slug; see GET /api/v1/meta-data/banks'],
      ['0010246780_0803-123-4567', 'Unknown bank slug; see GET /api/v1/meta-data/banks'],
      ['0010246780_gtb-08031234567', 'Unknown bank slug; see GET /api/v1/meta-data/banks'],
      [
        '0010246780_',
        'Account is missing its bank slug; write it as <10-digit account number>_<bank slug>, for example 0123456789_access-bank',
      ],
      ['access-bank', /^Account must name its bank/],
      ['', 'Account number must be 10 digits (NUBAN)'],
      ['0'.repeat(600), /^Account is too long/],
    ],
  },
  bvn: {
    accepted: [
      ['22123456789', '22123456789'],
      ['221 2345 6789', '22123456789'],
      ['221-234-567-89', '22123456789'],
      [' 22123456789 ', '22123456789'],
      ['2 2 1 2 3 4 5 6 7 8 9', '22123456789'],
      ['22123\t456789', '22123456789'],
      ['２２１２３４５６７８９', '22123456789'],
      ['221–234–56789', '22123456789'],
      ['22 1234-56789', '22123456789'],
      ['21987654321', '21987654321'],
    ],
    rejected: [
      ['2212345678', 'BVN must be 11 digits, got 10'],
      ['221234567890', 'BVN must be 11 digits, got 12'],
      ['', 'BVN must be 11 digits, got 0'],
      ['   ', 'BVN must be 11 digits, got 0'],
      ['2212345678O', 'BVN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['221.234.567.89', 'BVN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['+22123456789', 'BVN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['BVN22123456789', 'BVN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['22123456789/1', 'BVN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['٢٢١٢٣٤٥٦٧٨٩', 'BVN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['1'.repeat(1000), 'BVN must be 11 digits'],
      ['00000000000', 'BVN cannot be one digit repeated; that is a placeholder, not a real BVN'],
      ['2222 2222 222', 'BVN cannot be one digit repeated; that is a placeholder, not a real BVN'],
      ['08031234567', 'BVN never starts with 0; this looks like a phone number'],
    ],
  },
  nin: {
    accepted: [
      ['12345678901', '12345678901'],
      ['1234 5678 901', '12345678901'],
      ['123-4567-8901', '12345678901'],
      [' 12345678901\n', '12345678901'],
      ['1 2 3 4 5 6 7 8 9 0 1', '12345678901'],
      ['１２３４５６７８９０１', '12345678901'],
      ['12345 678901', '12345678901'],
      ['98765432100', '98765432100'],
      ['01234567890', '01234567890'],
      ['123—4567—8901', '12345678901'],
    ],
    rejected: [
      ['1234567890', 'NIN must be 11 digits, got 10'],
      ['123456789012', 'NIN must be 11 digits, got 12'],
      ['', 'NIN must be 11 digits, got 0'],
      ['12345678 90l', 'NIN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['NIN12345678901', 'NIN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['123.4567.8901', 'NIN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['(123)45678901', 'NIN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['12345678901#', 'NIN must be 11 digits; it may contain only digits, spaces and dashes'],
      ['1234567', 'NIN must be 11 digits, got 7'],
      ['123456789012345', 'NIN must be 11 digits, got 15'],
      ['00000000000', 'NIN cannot be one digit repeated; that is a placeholder, not a real NIN'],
    ],
  },
  phone: {
    accepted: [
      ['0803 123 4567', '+2348031234567'],
      ['2348031234567', '+2348031234567'],
      ['+234 (803) 123-4567', '+2348031234567'],
      ['+234 (0) 803 123 4567', '+2348031234567'],
      ['08031234567', '+2348031234567'],
      ['8031234567', '+2348031234567'],
      ['0803.123.4567', '+2348031234567'],
      ['00234 803 123 4567', '+2348031234567'],
      ['09161234567', '+2349161234567'],
      ['0701 234 5678', '+2347012345678'],
      ['0917 123 4567', '+2349171234567'],
      ['+44 20 7946 0958', '+442079460958'],
      ['+1 (415) 555-2671', '+14155552671'],
      ['+233 24 123 4567', '+233241234567'],
    ],
    rejected: [
      ['0803 123 456', /^Phone number is not a valid number/],
      ['080312345678', /^Phone number is not a valid number/],
      ['12345', /^Phone number has the wrong number of digits/],
      ['', /^Phone number may contain only digits/],
      ['0803-CALL-NOW', 'Phone number may contain only digits, a leading +, spaces, dashes, dots and brackets'],
      ['tel:+2348031234567', 'Phone number may contain only digits, a leading +, spaces, dashes, dots and brackets'],
      ['+2348031234567 ext 5', 'Phone number may contain only digits, a leading +, spaces, dashes, dots and brackets'],
      ['+234+8031234567', 'Phone number may contain only digits, a leading +, spaces, dashes, dots and brackets'],
      ['+999 123 456 789', /^Phone number is not a valid number/],
      ['+229 97 12 34 56', /^Phone number is not a valid number/],
      ['0000000000000', /^Phone number is not a valid number/],
      ['1'.repeat(30), /^Phone number has the wrong number of digits/],
    ],
  },
  email: {
    accepted: [
      ['john.doe@example.com', 'john.doe@example.com'],
      ['  John.Doe@Example.COM  ', 'john.doe@example.com'],
      ['JOHN+fraud@gmail.com', 'john+fraud@gmail.com'],
      ['a@b.ng', 'a@b.ng'],
      ['o’brien@example.com'.replace('’', "'"), "o'brien@example.com"],
      ['user_name-1@mail.example.com.ng', 'user_name-1@mail.example.com.ng'],
      ['x@xn--80ak6aa92e.com', 'x@xn--80ak6aa92e.com'],
      ['first.last@sub-domain.example.org', 'first.last@sub-domain.example.org'],
      ['1234567890@example.com', '1234567890@example.com'],
      ['a!#$%&*+/=?^_`{|}~-z@example.com', 'a!#$%&*+/=?^_`{|}~-z@example.com'],
      ['\tinfo@company.com.ng\n', 'info@company.com.ng'],
    ],
    rejected: [
      ['john.doe.example.com', 'E-mail address must contain exactly one @'],
      ['john@doe@example.com', 'E-mail address must contain exactly one @'],
      ['@example.com', 'E-mail address has an invalid part before the @'],
      ['john..doe@example.com', 'E-mail address has an invalid part before the @'],
      ['.john@example.com', 'E-mail address has an invalid part before the @'],
      ['john@example', 'E-mail address has an invalid domain after the @'],
      ['john@-example.com', 'E-mail address has an invalid domain after the @'],
      ['john@example..com', 'E-mail address has an invalid domain after the @'],
      ['john@example.c0m', 'E-mail address has an invalid domain after the @'],
      ['john@[127.0.0.1]', 'E-mail address has an invalid domain after the @'],
      ['john doe@example.com', 'E-mail address may contain only ASCII letters, digits and punctuation, without spaces'],
      ['jöhn@example.com', 'E-mail address may contain only ASCII letters, digits and punctuation, without spaces'],
      ['', 'E-mail address must contain exactly one @'],
      [`${'a'.repeat(65)}@example.com`, 'E-mail address has an invalid part before the @'],
    ],
  },
  account_name: {
    accepted: [
      ['John Doe', 'john doe'],
      ['  DOE   John  ', 'doe john'],
      ['DOE, John', 'doe john'],
      ['Adébáyọ̀ Ọlámídé', 'adébáyọ̀ ọlámídé'.normalize('NFKC')],
      ['O’Brien Mary-Jane', "o'brien mary-jane"],
      ['Ｊｏｈｎ Ｄｏｅ', 'john doe'],
      ['STRAßE Hans', 'strasse hans'],
      ['ABC TRADING (NIG) LTD', 'abc trading nig ltd'],
      ['A & B Ventures 2020', 'a & b ventures 2020'],
      ['Dr. J. Doe', 'dr. j. doe'],
      ['Chukwuemeka\u00a0Okafor', 'chukwuemeka okafor'],
      ['ΟΔΥΣΣΕΥΣ', 'οδυσσευς'],
    ],
    rejected: [
      ['', 'Account name is empty'],
      ['   ', 'Account name is empty'],
      [', ; ()', 'Account name is empty'],
      ['12345', 'Account name must contain letters'],
      ['john@doe.com', 'Account name may contain only letters, digits, spaces, apostrophes, hyphens, dots and &'],
      ['John #Doe', 'Account name may contain only letters, digits, spaces, apostrophes, hyphens, dots and &'],
      ['John Doe 😀', 'Account name may contain only letters, digits, spaces, apostrophes, hyphens, dots and &'],
      ['John_Doe', 'Account name may contain only letters, digits, spaces, apostrophes, hyphens, dots and &'],
      ['John\u0000Doe', 'Account name may contain only letters, digits, spaces, apostrophes, hyphens, dots and &'],
      ['John "Doe"', 'Account name may contain only letters, digits, spaces, apostrophes, hyphens, dots and &'],
      ['$$$', 'Account name may contain only letters, digits, spaces, apostrophes, hyphens, dots and &'],
      [`${'ab '.repeat(100)}`, 'Account name is too long (200 characters at most)'],
    ],
  },
  social_handle: {
    accepted: [
      ['@JohnDoe', 'johndoe'],
      ['johndoe', 'johndoe'],
      ['  @john.doe_99  ', 'john.doe_99'],
      ['JOHN-DOE', 'john-doe'],
      ['@@johndoe'.slice(1), 'johndoe'],
      ['__x__', '__x__'],
      ['@ab', 'ab'],
      ['@１２３abc', '123abc'],
      ['a'.repeat(64), 'a'.repeat(64)],
      ['@Fraud.Busters', 'fraud.busters'],
    ],
    rejected: [
      ['', 'Social handle is empty'],
      ['@', 'Social handle is empty'],
      ['@@johndoe', 'Social handle may contain only letters, digits, dots, underscores and hyphens (and one leading @)'],
      ['john doe', 'Social handle may contain only letters, digits, dots, underscores and hyphens (and one leading @)'],
      [
        'https://instagram.com/johndoe',
        'Social handle may contain only letters, digits, dots, underscores and hyphens (and one leading @)',
      ],
      ['jöhn', 'Social handle may contain only letters, digits, dots, underscores and hyphens (and one leading @)'],
      ['john#doe', 'Social handle may contain only letters, digits, dots, underscores and hyphens (and one leading @)'],
      ['@a', 'Social handle must be 2 to 64 characters long'],
      ['a'.repeat(65), 'Social handle must be 2 to 64 characters long'],
      ['...', 'Social handle must contain a letter or a digit'],
      ['_-_', 'Social handle must contain a letter or a digit'],
    ],
  },
  international_passport: {
    accepted: [
      ['A12345678', 'A12345678'],
      ['a12345678', 'A12345678'],
      [' A 1234 5678 ', 'A12345678'],
      ['A-1234-5678', 'A12345678'],
      ['B00112233', 'B00112233'],
      ['123456789', '123456789'],
      ['GB1234567', 'GB1234567'],
      ['Ａ12345678', 'A12345678'],
      ['x1y2z3', 'X1Y2Z3'],
      ['AB12345678901234567C', 'AB12345678901234567C'],
    ],
    rejected: [
      ['NONE', 'Passport number must be 6 to 20 letters and digits, got 4'],
      ['UNKNOWN', 'Passport number must contain at least one digit'],
      ['ABCDEFGH', 'Passport number must contain at least one digit'],
      ['N/A', 'Passport number may contain only letters A-Z and digits (spaces and dashes are ignored)'],
      ['A1234', 'Passport number must be 6 to 20 letters and digits, got 5'],
      [`${'A'.repeat(20)}1`, 'Passport number must be 6 to 20 letters and digits, got 21'],
      ['A123.45678', 'Passport number may contain only letters A-Z and digits (spaces and dashes are ignored)'],
      ['Ä12345678', 'Passport number may contain only letters A-Z and digits (spaces and dashes are ignored)'],
      ['', 'Passport number must be 6 to 20 letters and digits, got 0'],
      ['A1234567#', 'Passport number may contain only letters A-Z and digits (spaces and dashes are ignored)'],
    ],
  },
  drivers_license: {
    accepted: [
      ['ABC12345AA12', 'ABC12345AA12'],
      ['abc12345aa12', 'ABC12345AA12'],
      ['ABC-12345-AA12', 'ABC12345AA12'],
      [' ABC 12345 AA12 ', 'ABC12345AA12'],
      ['LAG12345AB01', 'LAG12345AB01'],
      ['FKJ1234567', 'FKJ1234567'],
      ['AAA00000AA00', 'AAA00000AA00'],
      ['D1234567', 'D1234567'],
      ['ＡＢＣ12345ＡＡ12', 'ABC12345AA12'],
      ['123456', '123456'],
    ],
    rejected: [
      ['ABCDEFGHIJKL', "Driver's licence number must contain at least one digit"],
      ['ABC12', "Driver's licence number must be 6 to 20 letters and digits, got 5"],
      ['ABC12345AA12ABC12345AA12', "Driver's licence number must be 6 to 20 letters and digits, got 24"],
      ['ABC/12345/AA12', "Driver's licence number may contain only letters A-Z and digits (spaces and dashes are ignored)"],
      ['ABC.12345.AA12', "Driver's licence number may contain only letters A-Z and digits (spaces and dashes are ignored)"],
      ['', "Driver's licence number must be 6 to 20 letters and digits, got 0"],
      ['   ', "Driver's licence number must be 6 to 20 letters and digits, got 0"],
      ['NOT AVAILABLE', "Driver's licence number must contain at least one digit"],
      ['ABC12345AA12!', "Driver's licence number may contain only letters A-Z and digits (spaces and dashes are ignored)"],
      ['ÅBC12345AA12', "Driver's licence number may contain only letters A-Z and digits (spaces and dashes are ignored)"],
    ],
  },
};

describe.each(Object.entries(TABLES))('normalising %s', (label, table) => {
  it('has at least ten accepted and ten rejected examples', () => {
    expect(table.accepted.length).toBeGreaterThanOrEqual(10);
    expect(table.rejected.length).toBeGreaterThanOrEqual(10);
  });

  it.each(table.accepted)('accepts %j as %j', (raw, expected) => {
    const result = store(label as IdentifierLabel, raw);
    expect(result).toMatchObject({ ok: true, value: expected });
  });

  it.each(table.rejected)('rejects %j: %s', (raw, expected) => {
    const result = store(label as IdentifierLabel, raw);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    if (typeof expected === 'string') expect(result.message).toBe(expected);
    else expect(result.message).toMatch(expected);
  });

  it('never repeats a rejected value in its message', () => {
    for (const [raw] of table.rejected) {
      const result = store(label as IdentifierLabel, raw);
      const core = raw.trim();
      // The fixed examples in some messages are not the caller's value.
      if (HINTS.some((hint) => hint.includes(core))) continue;
      if (!result.ok && core.length >= 6) expect(result.message).not.toContain(core);
    }
  });
});

describe('accounts', () => {
  it('computes NUBAN check digits with the CBN algorithm (known vectors)', () => {
    expect(nubanCheckDigit('044', '001024678')).toBe(0);
    for (const code of ['101', '068', '035', '057']) expect(nubanCheckDigit(code, '505011493')).toBe(0);
    expect(nubanCheckDigit('011', '000001457')).toBe(9);
    // The 2020 revision's 6-digit "000"-padded code gives the same digit over 15 positions.
    expect(nubanCheckDigit('000044', '001024678')).toBe(0);
  });

  it('gives the bare NUBAN and the bank slug beside the normalised value', () => {
    expect(store('account', '0010246780_access-bank')).toEqual({
      ok: true,
      value: '0010246780_access-bank',
      indexValue: '0010246780_access-bank',
      nuban: '0010246780',
      bankSlug: 'access-bank',
    });
  });

  it('accepts a bare 10-digit number for a search only, without a bank', () => {
    expect(search('account', '001 024 6780')).toEqual({
      ok: true,
      value: '0010246780',
      indexValue: '0010246780',
      nuban: '0010246780',
    });
    expect(search('account', '0010246780_access-bank')).toMatchObject({ ok: true, bankSlug: 'access-bank' });
    expect(search('account', '001024678')).toEqual({ ok: false, message: 'Account number must be 10 digits (NUBAN)' });
    expect(store('account', '0010246780').ok).toBe(false);
  });

  it('does not check digits where the listed code is not a 3-digit CBN bank code', () => {
    // FBNQuest is listed with a 6-digit code and VFD (microfinance) with a processor code.
    expect(store('account', '1234567890_fbnquest-merchant-bank').ok).toBe(true);
    expect(store('account', '1234567890_vfd-microfinance-bank').ok).toBe(true);
  });
});

describe('account names', () => {
  it('sort their words for the index, so the order they were written in does not matter', () => {
    const a = store('account_name', 'DOE John');
    const b = store('account_name', 'john doe');
    expect(a).toMatchObject({ ok: true, value: 'doe john', indexValue: 'doe john' });
    expect(b).toMatchObject({ ok: true, value: 'john doe', indexValue: 'doe john' });
  });
});

describe('the dispatcher', () => {
  it('rejects an unknown label and a non-string value without throwing', () => {
    expect(normalizeIdentifier('iban' as IdentifierLabel, 'x', { banks, purpose: 'store' })).toEqual({
      ok: false,
      message: 'Unknown identifier label',
    });
    expect(normalizeIdentifier('bvn', 22123456789 as unknown as string, { banks, purpose: 'store' })).toEqual({
      ok: false,
      message: 'Identifier value must be a string',
    });
  });
});
