/**
 * Who a background job's audit rows name: no API key acted, so a fixed id that no key can have
 * (keys get random v4 uuids; this one is all zeros but its version and variant bits).
 */
export const SYSTEM_KEY_ID = '00000000-0000-4000-8000-000000000000';

/** The request id of a job run's audit rows: the job and the instant it ran for. */
export const jobRequestId = (job: string, now: Date) => `job:${job}:${now.toISOString()}`;
