import { describe, expect, it } from 'vitest';
import { buildTestApp } from './helpers/test-app.js';

const CONTACT = '/api/v1/meta-data/contact';

describe("the operators' contact for people outside", () => {
  it('answers the configured address to anyone, without a key, and null when there is none', async () => {
    const withAddress = await buildTestApp({ config: { contactEmail: 'privacy@redflag.example.ng' } });
    const without = await buildTestApp();
    try {
      const res = await withAddress.app.inject({ url: CONTACT });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        message: 'Contact fetched successfully',
        data: { contact: { email: 'privacy@redflag.example.ng' } },
      });
      expect((await without.app.inject({ url: CONTACT })).json().data).toEqual({ contact: { email: null } });
    } finally {
      await withAddress.close();
      await without.close();
    }
  });
});
