// Values for the fuzzer: a plausible value for a schema (so a request gets past the first check and
// reaches the code behind it), and the hostile ones that replace it.

/** A small seeded generator (mulberry32), so a failing run can be repeated with its seed. */
export function createRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (list) => list[int(list.length)],
  };
}

export const NASTY_STRINGS = [
  '\u0000',
  'a\u0000b',
  `${'x'.repeat(60)}\u0000`,
  '',
  ' ',
  '\t\n\r',
  '😀'.repeat(30),
  '\u202eevil\u202c',
  '\ufeffbom',
  '\ud800',
  '\udfff\ud800',
  'e\u0301\u0301\u0301',
  'ﬁ ﬂ Ⅸ ｆｕｌｌ',
  '\u200b\u200d\u2060',
  'Ā'.repeat(5000),
  'x'.repeat(70_000),
  '1e20',
  '-1',
  'NaN',
  'null',
  'true',
  '[]',
  '{}',
  '2025-02-30',
  '2025-13-01',
  '0000-00-00',
  '+275760-09-13',
  '2025-02-28T25:61:00Z',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  "'; drop table reports; --",
  '%00%zz%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '\u0024{jndi:ldap://x}',
  '__proto__',
  'constructor',
];

export const NASTY_NUMBERS = [
  0,
  -1,
  -0,
  1.5,
  1e20,
  -1e20,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 31,
  2 ** 63,
  '1',
  '1e20',
  null,
  true,
  [],
  {},
];

/** Other shapes than the schema's type, including prototype-polluting objects. */
export const WRONG_TYPES = [
  null,
  true,
  false,
  0,
  12.5,
  'text',
  [],
  [null],
  {},
  JSON.parse('{"__proto__":{"polluted":1}}'),
  [[[[]]]],
];

/** Hostile query or path text (already percent-encoded where it means to be). */
export const NASTY_TEXT = [
  '%00',
  'a%00b',
  '%zz',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%FF%FE',
  '1e20',
  '99999999999999999999999',
  '-1',
  '0',
  '1.5',
  '0x10',
  '%20%201%20',
  'NaN',
  'Infinity',
  '',
  'a'.repeat(150),
  'a'.repeat(5000),
  '%F0%9F%98%80',
  '%E2%80%AE',
  '2025-02-30',
  '2025-02-29',
  '2024-02-29',
  '9999-12-31T23:59:59Z',
  '..%2F..%2F',
  '%2e%2e',
  'true',
  '[]',
  '%5B%5D',
];

/** Field names whose plausible value is not guessable from the schema alone. */
const HINTS = {
  eventDate: () => '2025-01-15',
  from: () => '2025-01-01',
  to: () => '2025-12-31',
  email: () => 'victim@example.com',
  phone: () => '08031234567',
  currency: () => 'NGN',
  name: () => 'Ada Obi',
  businessName: () => 'Fuzz MFB',
  financialInstitution: () => 'Access Bank',
  reason: () => 'Reported in error by the fuzzer, withdrawn.',
  attachments: () => [],
};

const IDENTIFIER_SAMPLES = {
  account: '0010246780_access-bank',
  bvn: '22123456789',
  nin: '12345678901',
  phone: '+234 803 123 4567',
  email: 'mule@example.com',
  drivers_license: 'ABC12345DE',
  international_passport: 'A01234567',
  account_name: 'John Doe',
  social_handle: '@mule',
};

/** A value that satisfies `schema` where it can, so that a later mutation is the only thing wrong. */
export function plausible(schema, random, name = '', depth = 0) {
  if (!schema || depth > 6) return null;
  if (schema.anyOf || schema.oneOf) return plausible(random.pick(schema.anyOf ?? schema.oneOf), random, name, depth + 1);
  if (schema.enum) return random.pick(schema.enum);
  if (HINTS[name] && schema.type !== 'object') return HINTS[name]();
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'object': {
      const out = {};
      const required = new Set(schema.required ?? []);
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (required.has(key) || random.chance(0.5)) out[key] = plausible(sub, random, key, depth + 1);
      }
      if (name === '' && out.identifiers === undefined && schema.properties?.identifier) {
        out.value = IDENTIFIER_SAMPLES[out.identifier] ?? out.value;
      }
      return out;
    }
    case 'array': {
      const min = Math.max(schema.minItems ?? 0, 1);
      const count = Math.min(min + random.int(2), schema.maxItems ?? 3);
      return Array.from({ length: count }, () => {
        const item = plausible(schema.items, random, name, depth + 1);
        if (item && typeof item === 'object' && typeof item.label === 'string') item.value = IDENTIFIER_SAMPLES[item.label];
        return item;
      });
    }
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return random.chance(0.5);
    case 'string': {
      if (schema.format === 'date-time') return new Date(Date.UTC(2025, 0, 15)).toISOString();
      if (schema.format === 'uuid') return crypto.randomUUID();
      const min = schema.minLength ?? 1;
      const base = 'Funds were moved out within the hour to mule accounts. ';
      return base.repeat(Math.ceil(Math.max(min, 8) / base.length)).slice(0, Math.max(min, Math.min(60, schema.maxLength ?? 60)));
    }
    default:
      return 'x';
  }
}

/** Replaces one value somewhere in `value` (an object or array) with a hostile one. */
export function mutate(value, random) {
  const paths = [];
  const walk = (node, path) => {
    paths.push(path);
    if (node && typeof node === 'object') for (const key of Object.keys(node)) walk(node[key], [...path, key]);
  };
  walk(value, []);
  const path = random.pick(paths);
  const target = path.reduce((node, key) => node?.[key], value);
  const chosen =
    typeof target === 'number'
      ? random.pick(NASTY_NUMBERS)
      : typeof target === 'string' && random.chance(0.8)
        ? random.pick([...NASTY_STRINGS, `${target}\u0000`, `\u0000${target}`, target.repeat(50)])
        : random.pick([...WRONG_TYPES, ...NASTY_STRINGS, ...NASTY_NUMBERS]);
  // A fresh copy: the shared samples must not be mutated later (nor end up inside themselves).
  const replacement = chosen !== null && typeof chosen === 'object' ? JSON.parse(JSON.stringify(chosen)) : chosen;
  if (path.length === 0) return replacement;
  const parent = path.slice(0, -1).reduce((node, key) => node[key], value);
  const key = path[path.length - 1];
  if (random.chance(0.1) && !Array.isArray(parent)) {
    // An extra field beside a known one, sometimes named to pollute a prototype.
    const name = random.pick(['__proto__', 'constructor', 'extra', '\u0000', 'ä']);
    Object.defineProperty(parent, name, { value: replacement, enumerable: true, configurable: true, writable: true });
  } else {
    parent[key] = replacement;
  }
  return value;
}

/** Percent-encodes a value for a query string or path segment (a lone surrogate becomes U+FFFD, as in UTF-8). */
export function encode(value) {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
