import { AppError } from '../../http/errors.js';
import type { UserRow } from './users.repository.js';

/**
 * Account recovery takes two people when the link is handed over (decision 0136). An administrator
 * who takes a person's second factor away and is handed that person's password link could sign in
 * as them; so one administrator may take only one of the two steps. The rule follows the account's
 * state, not a clock: it holds until the person has set up a new factor, or set a password of their
 * own. A link e-mailed to the person's own mailbox is not handed over, and does not count.
 */

/** This administrator took the person's second factor away, and no new one is set up yet. */
export function factorTakenByThem(user: UserRow, adminId: string): boolean {
  return user.second_factor_reset_by === adminId && user.totp_confirmed_at === null;
}

/** The password the person uses now was set through a link handed to this administrator. */
export function passwordSetThroughThem(user: UserRow, adminId: string): boolean {
  return user.password_link_handed_to === adminId;
}

export const linkAfterOwnReset = () =>
  new AppError(
    'INVALID_STATE',
    "You took this person's second factor away and they have not set up a new one yet. So that no one person can take over an account, another administrator (or the operators) makes their password link.",
  );

export const linkNotMailedAfterOwnReset = () =>
  new AppError(
    'UNAVAILABLE',
    "The password link could not be e-mailed, and it cannot be handed to you because you took this person's second factor away. Try again in a minute, or ask another administrator.",
    { retryAfter: 60 },
  );

export const resetAfterOwnLink = () =>
  new AppError(
    'INVALID_STATE',
    'You were handed a password link for this person that still works, or that set the password they use now. So that no one person can take over an account, another administrator (or the operators) resets their second factor.',
  );
