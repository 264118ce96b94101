import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { referenceOf } from '../../src/modules/public-reports/reference.js';

/** An error body without its request id, which differs on every answer. */
export function withoutRequestId(res: { json(): unknown }) {
  const body = res.json() as { data: Record<string, unknown> };
  const { requestId, ...data } = body.data;
  expect(typeof requestId).toBe('string');
  return { ...body, data };
}

/**
 * Ids that are not the id of `real` but come close: `deleted` (one that was), its reference (not
 * unique, so no key), the id cut, padded or bent, and strings no id looks like. A route whose full
 * id is the caller's proof (decisions 0129, 0133) answers each as it answers a random id.
 */
export function idsThatAreNot(real: string, deleted: string): string[] {
  return [
    deleted,
    'not-a-uuid',
    referenceOf(real),
    referenceOf(real).replace('-', ''),
    real.replace(/-/g, ''),
    `${real}x`,
    `x${real}`,
    real.slice(0, 35),
    `${real.slice(0, 35)}g`,
    encodeURIComponent(` ${real}`),
    encodeURIComponent(`${real}\u200b`),
    '00000000-0000-0000-0000-000000000000',
    'x'.repeat(100), // the longest a path parameter may be
    encodeURIComponent("'; select 1; --"),
    '%25',
    '..%2F..%2Fetc',
  ];
}

/** Each of the ids answers exactly as the random id's `notFound` answer did. */
export async function expectEachNotFound(
  ids: string[],
  read: (id: string) => Promise<LightMyRequestResponse>,
  random: LightMyRequestResponse,
): Promise<void> {
  const notFound = withoutRequestId(random);
  for (const id of ids) {
    const res = await read(id);
    expect(res.statusCode, id).toBe(404);
    expect(res.headers['content-type']).toBe(random.headers['content-type']);
    expect(withoutRequestId(res), id).toEqual(notFound);
  }
}

/**
 * A status answer (decisions 0129, 0133): the envelope, exactly four fields (nothing anyone wrote,
 * no identifier, no id), the status expected, the reference of the id, and its two dates in order.
 */
export function expectStatusAnswer(res: LightMyRequestResponse, reference: string, expected: string) {
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['data', 'message', 'success']);
  expect(body.success).toBe(true);
  expect(Object.keys(body.data).sort()).toEqual(['receivedAt', 'reference', 'status', 'updatedAt']);
  expect(body.data.status).toBe(expected);
  expect(body.data.reference).toBe(reference);
  expect(Date.parse(body.data.receivedAt)).not.toBeNaN();
  expect(Date.parse(body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(body.data.receivedAt));
  return { body, text: res.body };
}
