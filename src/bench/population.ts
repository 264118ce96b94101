import type { BankDirectory, BankEntry, IdentifierLabel } from '../identifiers/normalize.js';
import { IDENTIFIER_LABELS } from '../identifiers/normalize.js';
import { nubanCheckCode, nubanCheckDigit } from '../identifiers/nuban.js';
import type { IdentifierInput } from '../identifiers/sealed-identifiers.js';
import { FRAUD_TYPES, type FraudType } from '../modules/reports/report-values.js';

/**
 * A deterministic population for the benchmark: everything is a function of the slot number, so
 * the load generator can name values that are stored (unique or common) or certainly not (misses)
 * without reading the database. Layout for N identifier slots and R = 0.3 N reports: reports
 * 0..X-1 carry four identifiers and the rest three (X = N − 3R); the first slot of a few reports
 * holds one of C "common" identifiers instead — mule accounts, shared phones — each in
 * COMMON_REPEATS reports; every other slot holds a value of its own.
 */
export const COMMON_REPEATS = 18;
export const REPORTS_PER_IDENTIFIER = 0.3;
export const SEED_COMPANIES = 8;
/** Bump when the generated population changes, so cached databases are rebuilt. */
export const POPULATION_VERSION = 4;

/** Value spaces that never overlap: stored uniques, stored commons, misses, and values created under load. */
export const Namespace = { unique: 0, common: 1, miss: 2, created: 3 } as const;
export type Namespace = (typeof Namespace)[keyof typeof Namespace];

const COMMON_LABELS: IdentifierLabel[] = ['account', 'phone', 'bvn', 'email'];

export interface PopulationShape {
  identifiers: number;
  reports: number;
  /** Reports with four identifiers (the rest have three). */
  fourSlotReports: number;
  common: number;
  /** Distance between the reports that share one common identifier. */
  commonStride: number;
}

export function populationShape(identifiers: number): PopulationShape {
  if (!Number.isInteger(identifiers) || identifiers < 1_000 || identifiers > 50_000_000) {
    throw new Error('identifiers must be an integer from 1,000 to 50,000,000');
  }
  const reports = Math.round(identifiers * REPORTS_PER_IDENTIFIER);
  const fourSlotReports = identifiers - 3 * reports;
  const commonStride = Math.floor(reports / COMMON_REPEATS);
  const common = Math.min(Math.max(4, Math.round(identifiers / 2_000)), commonStride);
  return { identifiers, reports, fourSlotReports, common, commonStride };
}

export function firstSlotOf(shape: PopulationShape, report: number): number {
  return report < shape.fourSlotReports ? 4 * report : 4 * shape.fourSlotReports + 3 * (report - shape.fourSlotReports);
}

export function slotCount(shape: PopulationShape, report: number): number {
  return report < shape.fourSlotReports ? 4 : 3;
}

export function reportOfSlot(shape: PopulationShape, slot: number): number {
  const four = 4 * shape.fourSlotReports;
  return slot < four ? Math.floor(slot / 4) : shape.fourSlotReports + Math.floor((slot - four) / 3);
}

/** The common identifier whose occurrence the report's first slot holds, if any. */
export function commonOfReport(shape: PopulationShape, report: number): number | undefined {
  const c = report % shape.commonStride;
  const j = Math.floor(report / shape.commonStride);
  return c < shape.common && j < COMMON_REPEATS ? c : undefined;
}

/** About 1% of reports are drafts and 1% have left the list (search does not find either). */
export function reportState(report: number): { status: 'published' | 'draft'; listingStatus: 'listed' | 'exited' } {
  const r = report % 97;
  if (r === 95) return { status: 'draft', listingStatus: 'listed' };
  if (r === 96) return { status: 'published', listingStatus: 'exited' };
  return { status: 'published', listingStatus: 'listed' };
}

const FIRST_NAMES = [
  'Adaeze',
  'Chinedu',
  'Ngozi',
  'Emeka',
  'Funmilayo',
  'Tunde',
  'Aisha',
  'Ibrahim',
  'Yetunde',
  'Obinna',
  'Halima',
  'Segun',
  'Chiamaka',
  'Musa',
  'Bukola',
  'Ifeanyi',
  'Zainab',
  'Olumide',
  'Nkechi',
  'Kelechi',
];
const LAST_NAMES = [
  'Okafor',
  'Adeyemi',
  'Balogun',
  'Eze',
  'Okonkwo',
  'Abubakar',
  'Nwosu',
  'Ogunleye',
  'Danjuma',
  'Ibekwe',
  'Afolabi',
  'Uche',
  'Bello',
  'Obi',
  'Lawal',
  'Nnamdi',
  'Oyelaran',
  'Chukwu',
  'Usman',
  'Akande',
];
const SYLLABLES = ['ka', 'ri', 'mo', 'de', 'lu', 'sa', 'ne', 'bo', 'ti', 'gu', 'fa', 'ye', 'zo', 'wi', 'pe', 'ha'];
const NAMESPACE_SYLLABLES = ['Qu', 'Vo', 'Xa', 'Ju'];
const EMAIL_DOMAINS = ['gmail.com', 'yahoo.com', 'outlook.com', 'mail.ng', 'proton.me'];
const PHONE_PREFIXES: Record<Namespace, string[]> = {
  0: ['0803', '0806', '0813', '0816', '0703', '0706'],
  1: ['0802', '0808'],
  2: ['0903', '0906'],
  3: ['0805', '0807', '0815', '0811', '0905', '0705'],
};
const PASSPORT_LETTERS = ['A', 'B', 'C', 'D'];

/** A word no dictionary has, unique per (namespace, n): keeps generated names and handles distinct. */
function word(namespace: Namespace, n: number): string {
  let text = NAMESPACE_SYLLABLES[namespace] as string;
  let rest = n;
  do {
    text += SYLLABLES[rest % SYLLABLES.length];
    rest = Math.floor(rest / SYLLABLES.length);
  } while (rest > 0);
  return text;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Banks whose NUBAN check digit the normaliser verifies: generated accounts pass the real check. */
export function checkedBanks(banks: BankDirectory): BankEntry[] {
  return [...banks.values()].filter((bank) => nubanCheckCode(bank) !== undefined).sort((a, b) => a.slug.localeCompare(b.slug));
}

/**
 * The value of identifier `n` of a label in a namespace, written as a person might type it.
 * Distinct (label, namespace, n) give distinct normalised values for n below 10^8.
 */
export function identifierValue(label: IdentifierLabel, namespace: Namespace, n: number, banks: BankEntry[]): string {
  switch (label) {
    case 'account': {
      const bank = banks[n % banks.length] as BankEntry;
      const serial = `${namespace}${pad(n % 100_000_000, 8)}`;
      return `${serial}${nubanCheckDigit(bank.code, serial)}_${bank.slug}`;
    }
    case 'bvn':
      return `2${namespace}${pad(n, 9)}`;
    case 'nin':
      return `7${namespace}${pad(n, 9)}`;
    case 'drivers_license':
      return `KJA${namespace}${pad(n, 8)}AA`;
    case 'international_passport':
      return `${PASSPORT_LETTERS[namespace]}${pad(n, 8)}`;
    case 'email':
      return `${(FIRST_NAMES[n % 20] as string).toLowerCase()}.${word(namespace, n).toLowerCase()}@${EMAIL_DOMAINS[n % 5]}`;
    case 'phone': {
      const prefixes = PHONE_PREFIXES[namespace];
      const prefix = prefixes[Math.floor(n / 10_000_000) % prefixes.length] as string;
      const subscriber = pad(n % 10_000_000, 7);
      return `${prefix} ${subscriber.slice(0, 3)} ${subscriber.slice(3)}`;
    }
    case 'account_name':
      return `${FIRST_NAMES[n % 20]} ${word(namespace, Math.floor(n / 20))} ${LAST_NAMES[Math.floor(n / 7) % 20]}`;
    case 'social_handle':
      return `@${word(namespace, n).toLowerCase()}_${n % 1000}`;
  }
}

/** The label a unique slot holds: consecutive slots rotate through the labels, so a report's are distinct. */
export function labelOfSlot(slot: number): IdentifierLabel {
  return IDENTIFIER_LABELS[slot % IDENTIFIER_LABELS.length] as IdentifierLabel;
}

export function commonLabel(common: number): IdentifierLabel {
  return COMMON_LABELS[common % COMMON_LABELS.length] as IdentifierLabel;
}

export function reportIdentifiers(shape: PopulationShape, report: number, banks: BankEntry[]): IdentifierInput[] {
  const first = firstSlotOf(shape, report);
  const common = commonOfReport(shape, report);
  const inputs: IdentifierInput[] = [];
  for (let slot = first; slot < first + slotCount(shape, report); slot++) {
    if (slot === first && common !== undefined) {
      const label = commonLabel(common);
      inputs.push({ label, value: identifierValue(label, Namespace.common, common, banks) });
    } else {
      const label = labelOfSlot(slot);
      inputs.push({ label, value: identifierValue(label, Namespace.unique, slot, banks) });
    }
  }
  return inputs;
}

const REASON_PARTS = [
  'The customer opened the account with documents that later proved forged and moved the funds out within hours.',
  'Several victims reported transfers to this account after calls from someone posing as our fraud desk.',
  'The account received proceeds of a phishing campaign and split them across wallets at other institutions.',
  'A loan was taken with a stolen identity; the phone number and e-mail address were changed the day before.',
  'Inflows from many unrelated senders were withdrawn in cash at agents in three states on the same day.',
  'The holder admitted to selling access to the account and its debit card to a third party for a fee.',
  'Chargebacks on card payments tie this party to a ring of fake online stores advertising on social media.',
  'The BVN was linked to accounts opened in different names with the same face photograph.',
];

export function fraudTypeOf(report: number): FraudType {
  return FRAUD_TYPES[(report * 7) % FRAUD_TYPES.length] as FraudType;
}

/** 100 to about 900 characters, varying by report. */
export function fraudReasonOf(report: number): string {
  const parts = 1 + (report % 8);
  const sentences: string[] = [];
  for (let i = 0; i < parts; i++) sentences.push(REASON_PARTS[(report + i * 3) % REASON_PARTS.length] as string);
  return `${sentences.join(' ')} Internal case ${report}.`;
}

/** Search values by class, for the load generator. Each call takes the next of a fixed pseudo-random sequence. */
export function createSearchPicker(shape: PopulationShape, banks: BankEntry[], seed = 1) {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: cheap, deterministic, good enough to spread requests over the population.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
  const asSearched = (label: IdentifierLabel, value: string, n: number) => {
    // Half the account searches give the bare NUBAN (every bank); phones are typed the other usual way.
    if (label === 'account' && n % 2 === 0) return value.slice(0, 10);
    if (label === 'phone') return `+234${value.replace(/\s/g, '').slice(1)}`;
    return value;
  };
  return {
    unique(): { identifier: IdentifierLabel; value: string } {
      for (;;) {
        const slot = Math.floor(next() * shape.identifiers);
        const report = reportOfSlot(shape, slot);
        if (reportState(report).status !== 'published' || reportState(report).listingStatus !== 'listed') continue;
        if (slot === firstSlotOf(shape, report) && commonOfReport(shape, report) !== undefined) continue;
        const label = labelOfSlot(slot);
        return { identifier: label, value: asSearched(label, identifierValue(label, Namespace.unique, slot, banks), slot) };
      }
    },
    common(): { identifier: IdentifierLabel; value: string } {
      const c = Math.floor(next() * shape.common);
      const label = commonLabel(c);
      return { identifier: label, value: asSearched(label, identifierValue(label, Namespace.common, c, banks), c + 1) };
    },
    miss(): { identifier: IdentifierLabel; value: string } {
      const n = Math.floor(next() * shape.identifiers);
      const label = labelOfSlot(n);
      return { identifier: label, value: asSearched(label, identifierValue(label, Namespace.miss, n, banks), n) };
    },
    /** 60% unique hits, 20% common hits, 20% misses. */
    mixed(): { identifier: IdentifierLabel; value: string } {
      const r = next();
      return r < 0.6 ? this.unique() : r < 0.8 ? this.common() : this.miss();
    },
  };
}
