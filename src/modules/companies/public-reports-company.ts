/**
 * The registry's built-in "Public reports" company (inserted by migration 0005): the `companyId` of
 * every public report and public upload. It has no keys (a database constraint refuses them) and
 * the company administration paths do not see it, so nobody can log in as it, suspend it or list it.
 */
export const PUBLIC_REPORTS_COMPANY_ID = '00000000-0000-4000-8000-000000000001';
