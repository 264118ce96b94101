import type { SealContext } from './keyring.js';

/**
 * A free text from its sealed column, or, for a row an earlier version wrote in clear that the
 * start-up sweep (seal-clear-texts.ts) has not sealed yet, from its clear column. The context is
 * built only when there is a token to open.
 */
export function openSealedOrClear(
  sealer: { open(token: string, context: SealContext): string },
  token: string | null,
  clear: string | null,
  context: () => SealContext,
): string | null {
  return token ? sealer.open(token, context()) : clear;
}
