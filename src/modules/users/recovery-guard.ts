import { AppError } from '../../http/errors.js';
import { DAY_MS } from '../../jobs/clock.js';
import type { UserRow } from './users.repository.js';

/**
 * Account recovery takes two people when the link is handed over (decision 0136). An administrator
 * who resets a person's second factor and is handed that person's password link could sign in as
 * them; so within this window the same administrator may take only one of the two steps. A link
 * e-mailed to the person's own mailbox is not handed over, and does not count.
 */
export const TWO_PEOPLE_WINDOW_MS = DAY_MS;

export const recoverySince = (at: Date) => new Date(at.getTime() - TWO_PEOPLE_WINDOW_MS);

/** Whether this administrator reset the person's second factor within the window. */
export function resetByThemRecently(user: UserRow, adminId: string, at: Date): boolean {
  return (
    user.second_factor_reset_by === adminId &&
    user.second_factor_reset_at !== null &&
    user.second_factor_reset_at > recoverySince(at)
  );
}

export const linkAfterOwnReset = () =>
  new AppError(
    'INVALID_STATE',
    "You reset this person's second factor in the last 24 hours, so their password link cannot be handed to you: another administrator (or the operators) makes it. Two people recover an account when the link is not e-mailed.",
  );

export const linkNotMailedAfterOwnReset = () =>
  new AppError(
    'UNAVAILABLE',
    "The password link could not be e-mailed, and as you reset this person's second factor in the last 24 hours it cannot be handed to you. Try again in a minute, or ask another administrator.",
    { retryAfter: 60 },
  );

export const resetAfterOwnLink = () =>
  new AppError(
    'INVALID_STATE',
    "You were handed this person's password link in the last 24 hours, so you cannot also reset their second factor: another administrator (or the operators) does it. Two people recover an account.",
  );
