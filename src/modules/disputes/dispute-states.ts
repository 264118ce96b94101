import type { DisputeStatus } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';

/** Lengths of a dispute's texts, counted after trimming. */
export const DISPUTE_LIMITS = {
  reasonMin: 50,
  reasonMax: 2000,
  statementMin: 50,
  statementMax: 2000,
  attachmentsMax: 3,
  decisionReasonMin: 10,
  decisionReasonMax: 500,
};

/** What can happen to a dispute, and who may do it. */
export type DisputeStep = 'uphold' | 'exit' | 'escalate' | 'time_out' | 'keep' | 'remove';

/**
 * Every allowed transition (README "Fairness" draws this table). Anything else is 409 INVALID_STATE.
 * open → upheld | exited | timed_out;  upheld → escalated | exited;  escalated → kept | removed.
 */
const NEXT: Record<DisputeStep, { from: readonly DisputeStatus[]; to: DisputeStatus }> = {
  uphold: { from: ['open'], to: 'upheld' },
  exit: { from: ['open', 'upheld'], to: 'exited' },
  time_out: { from: ['open'], to: 'timed_out' },
  escalate: { from: ['upheld'], to: 'escalated' },
  keep: { from: ['escalated'], to: 'kept' },
  remove: { from: ['escalated'], to: 'removed' },
};

/** Still awaiting someone: at most one of these per report and disputing party. */
export const UNRESOLVED: readonly DisputeStatus[] = ['open', 'upheld', 'escalated'];

export function nextStatus(current: DisputeStatus, step: DisputeStep): DisputeStatus {
  const rule = NEXT[step];
  if (!rule.from.includes(current)) {
    throw new AppError('INVALID_STATE', `A dispute that is ${current.replace('_', ' ')} cannot be ${PAST[step]}`);
  }
  return rule.to;
}

const PAST: Record<DisputeStep, string> = {
  uphold: 'upheld',
  exit: 'answered by exiting the report',
  time_out: 'timed out',
  escalate: 'escalated (only an upheld dispute can be)',
  keep: 'decided (only an escalated dispute can be)',
  remove: 'decided (only an escalated dispute can be)',
};
