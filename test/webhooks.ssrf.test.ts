import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkNewWebhookUrl, checkWebhookUrl, refusedAddressReason } from '../src/modules/webhooks/url-guard.js';
import { createCompany, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

const HOOKS = '/api/v1/external/webhooks';

describe('webhook URLs: no server-side request forgery', () => {
  let t: TestApp;
  let company: Awaited<ReturnType<typeof createCompany>>;

  beforeAll(async () => {
    t = await buildTestApp({ config: { webhookPollMs: 0, jobTickSeconds: 0 } });
    company = await createCompany(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const register = (url: string) =>
    t.app.inject({ method: 'POST', url: HOOKS, headers: key(company.apiKey), payload: { url, events: ['watchlist.match'] } });

  it.each([
    ['plain http', 'http://hooks.example.com/x', 'must use https'],
    ['loopback IPv4', 'https://127.0.0.1/x', 'loopback'],
    ['loopback by name (after DNS)', 'https://localhost/x', 'loopback'],
    ['loopback IPv6', 'https://[::1]/x', 'loopback'],
    ['private 10/8', 'https://10.1.2.3/x', 'private'],
    ['private 172.16/12', 'https://172.16.5.4/x', 'private'],
    ['private 192.168/16', 'https://192.168.1.10/x', 'private'],
    ['unique-local IPv6', 'https://[fd12::1]/x', 'uniqueLocal'],
    ['link-local IPv4', 'https://169.254.10.10/x', 'linkLocal'],
    ['link-local IPv6', 'https://[fe80::1]/x', 'linkLocal'],
    ['cloud metadata', 'https://169.254.169.254/latest/meta-data', 'metadata'],
    ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/x', 'private'],
    ['IPv4-compatible loopback', 'https://[::127.0.0.1]/x', 'IPv4-compatible'],
    ['carrier-grade NAT', 'https://100.64.1.1/x', 'carrierGradeNat'],
    ['unspecified', 'https://0.0.0.0/x', 'unspecified'],
    ['credentials in the URL', 'https://user:pw@8.8.8.8/x', 'credentials'],
  ])('refuses %s', async (_name, url, why) => {
    const res = await register(url);
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.data.code).toBe('VALIDATION_FAILED');
    expect(body.data.errors[0].field).toBe('url');
    expect(body.data.errors[0].message).toContain(why);
  });

  it.each([
    ['a port past 65535', 'https://hooks.example.com:99999/x', 'has the port 99999; a port is a number from 1 to 65535'],
    ['a port that is not a number', 'https://hooks.example.com:8o8o/x', 'has a port that is not a number'],
    ['no scheme', 'hooks.example.com/redflag', 'must be an absolute address starting with https://'],
    ['a space', 'https://hooks example.com/x', 'must not contain spaces, tabs or line breaks'],
    ['no host', 'https://', 'must name a host after the scheme'],
    ['a port but no host', 'https://:443/x', 'must name a host after the scheme'],
    ['three slashes', 'https:///hooks', 'must name a host after the scheme'],
    ['port 0', 'https://8.8.8.8:0/h', 'has the port 0; a port is a number from 1 to 65535'],
    ['a space before it', ' https://8.8.8.8/lead', 'must not contain spaces, tabs or line breaks'],
    ['a tab inside it', 'https://8.8.8.8/a\tb', 'must not contain spaces, tabs or line breaks'],
    ['a bad host after a password', 'https://user:secret@ho^st/x', 'must be an absolute URL with a valid host name'],
  ])('says what is wrong with an address that is not a URL: %s', async (_name, url, why) => {
    const res = await register(url);
    expect(res.statusCode).toBe(400);
    expect(res.json().data.errors).toEqual([{ field: 'url', message: expect.stringContaining(why) }]);
  });

  it('judges an endpoint stored before the typed-text rules by the guard alone at delivery', async () => {
    // The parser takes these: an address registered so before the rules keeps being delivered to.
    for (const stored of [' https://8.8.8.8/lead', 'https://8.8.8.8/a\tb', 'https://8.8.8.8:0/h']) {
      expect((await checkWebhookUrl(stored, false)).ok, stored).toBe(true);
      expect((await checkNewWebhookUrl(stored, false)).ok, stored).toBe(false);
    }
  });

  it("stores the address as it will be reached: the URL parser's form of what was typed", async () => {
    const res = await register('https://８.８.８.８/Hooks');
    expect(res.statusCode).toBe(201);
    expect(res.json().data.webhook.url).toBe('https://8.8.8.8/Hooks');
  });

  it('accepts a public https address (no request is made at registration)', async () => {
    const res = await register('https://8.8.8.8/hooks/redflag');
    expect(res.statusCode).toBe(201);
  });

  it('judges resolved addresses: public unicast passes, every other class fails', () => {
    expect(refusedAddressReason('8.8.8.8')).toBeNull();
    expect(refusedAddressReason('2606:4700:4700::1111')).toBeNull();
    expect(refusedAddressReason('127.0.0.53')).toMatch(/loopback/);
    expect(refusedAddressReason('fd00:ec2::254')).toMatch(/metadata/);
    expect(refusedAddressReason('::ffff:127.0.0.1')).toMatch(/loopback/);
    expect(refusedAddressReason('224.0.0.1')).toMatch(/multicast/);
    // IPv4-compatible (::/96) is "unicast" to ipaddr.js, yet may reach the IPv4 address inside. These
    // are the forms a URL's host and a DNS answer take (the URL parser writes [::127.0.0.1] as
    // [::7f00:1]); even a public IPv4 address inside is refused, as the range is deprecated.
    for (const address of ['::7f00:1', '::a00:1', '::a9fe:a9fe', '::808:808']) {
      expect(refusedAddressReason(address), address).toBe('is an IPv4-compatible IPv6 address (::/96, deprecated)');
    }
    expect(refusedAddressReason('::')).toMatch(/unspecified/);
    expect(refusedAddressReason('::1')).toMatch(/loopback/);
  });
});
