const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ids arrive as text from paths and the command line. A string that is not a uuid names no
 * row, and PostgreSQL would reject it with an error rather than find nothing, so services
 * answer "not found" for it without asking.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
