/**
 * Where background jobs and time-bound rules (dispute deadlines, listing periods) read the time.
 * Tests pass their own and move it, instead of waiting.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const DAY_MS = 86_400_000;

export const daysBefore = (date: Date, days: number) => new Date(date.getTime() - days * DAY_MS);
export const daysAfter = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);
