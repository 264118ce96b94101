import { type Kysely, sql } from 'kysely';
import { getCountries, getCountryCallingCode } from 'libphonenumber-js/max';

/**
 * Masked phones of public reports (what search shows every company) kept the network prefix and
 * three digits (`+234803****567`); from now on only the calling code and two (`+234****67`). The
 * stored masks are shortened in place: both parts are in the old mask, so nothing is decrypted.
 * Self-contained on purpose: a migration does not change when the service's code does.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const callingCodes = new Set(getCountries().map((country) => getCountryCallingCode(country)));
  // Calling codes are prefix-free: at most one of the first 1–3 digits is one.
  const remask = (masked: string) => {
    const digits = masked.replace(/^\+/, '');
    const code = [1, 2, 3].map((n) => digits.slice(0, n)).find((prefix) => callingCodes.has(prefix as never));
    return `+${code ?? ''}****${masked.slice(-2)}`;
  };
  const { rows } = await sql<{ id: string; victim_masked: any; guest_info_masked: any }>`
    select id, victim_masked, guest_info_masked from public_reports
    where victim_masked->>'phone' is not null or guest_info_masked->>'phone' is not null`.execute(db);
  for (const row of rows) {
    const fix = (details: any) =>
      details && typeof details.phone === 'string' && details.phone.includes('****')
        ? JSON.stringify({ ...details, phone: remask(details.phone) })
        : details === null
          ? null
          : JSON.stringify(details);
    await sql`update public_reports set victim_masked = ${fix(row.victim_masked)}::jsonb,
      guest_info_masked = ${fix(row.guest_info_masked)}::jsonb where id = ${row.id}`.execute(db);
  }
}

export async function down(): Promise<void> {
  // The longer masks cannot be rebuilt from the shorter ones.
}
