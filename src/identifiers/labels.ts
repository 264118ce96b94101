/** The identifier labels of API.md §3 (= the search identifier types of the interface document). */
export const IDENTIFIER_LABELS = [
  'account',
  'bvn',
  'nin',
  'drivers_license',
  'international_passport',
  'email',
  'phone',
  'account_name',
  'social_handle',
] as const;

export type IdentifierLabel = (typeof IDENTIFIER_LABELS)[number];

const LABEL_SET: ReadonlySet<string> = new Set(IDENTIFIER_LABELS);

export function isIdentifierLabel(value: unknown): value is IdentifierLabel {
  return typeof value === 'string' && LABEL_SET.has(value);
}

/** How a label is named in messages a compliance officer reads. */
export const LABEL_NAMES: Record<IdentifierLabel, string> = {
  account: 'Account',
  bvn: 'BVN',
  nin: 'NIN',
  drivers_license: "Driver's licence number",
  international_passport: 'Passport number',
  email: 'E-mail address',
  phone: 'Phone number',
  account_name: 'Account name',
  social_handle: 'Social handle',
};
