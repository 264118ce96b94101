import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** Where a webhook may be sent: the address it resolved to, pinned for the connection. */
export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export type GuardResult = { ok: true; target: ResolvedTarget } | { ok: false; reason: string };

/** The ipaddr.js ranges a webhook may reach; everything else (loopback, private, link-local, ...) is refused. */
const PUBLIC_RANGES = new Set(['unicast']);
/** Cloud metadata services that sit on otherwise ordinary-looking ranges. */
const METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'];

/** ipaddr.js's names of the ranges a webhook may not reach, as a person reads them. */
const RANGE_IN_WORDS: Record<string, string> = {
  unspecified: 'the unspecified address (nowhere)',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (linkLocal)',
  loopback: 'a loopback address (this machine)',
  carrierGradeNat: "an internet provider's shared address (carrier-grade NAT, carrierGradeNat)",
  private: 'a private network address',
  reserved: 'a reserved address',
  uniqueLocal: 'a private IPv6 address (uniqueLocal)',
  ipv4Mapped: 'an IPv4-mapped address',
  rfc6145: 'a translated IPv4 address (RFC 6145)',
  rfc6052: 'an IPv4-embedded IPv6 address (RFC 6052)',
  '6to4': 'a 6to4 relay address',
  teredo: 'a Teredo tunnel address',
  benchmarking: 'a benchmarking address',
  amt: 'an AMT relay address',
  as112: 'an AS112 address',
  deprecated: 'a deprecated address',
  orchid2: 'an ORCHIDv2 address',
};

/** Why `address` may not be reached, or null when it is a public unicast address. */
export function refusedAddressReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  let parsed = ipaddr.parse(address);
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (METADATA.includes(parsed.toNormalizedString()) || METADATA.includes(parsed.toString())) {
    return 'is a cloud metadata address';
  }
  const range = parsed.range();
  // ::a.b.c.d (IPv4-compatible, deprecated ::/96): ipaddr.js calls it unicast, but some networks
  // still carry it to the IPv4 address inside, such as ::127.0.0.1 to this machine.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) {
    return 'is an IPv4-compatible IPv6 address (::/96, deprecated)';
  }
  return PUBLIC_RANGES.has(range) ? null : `is ${RANGE_IN_WORDS[range] ?? `not a public address (${range})`}`;
}

const EXAMPLE = 'such as https://hooks.example.com/redflag';

/** What is wrong with text the URL parser refused, in the words its author would look for. */
function whyNotAUrl(raw: string): string {
  const parts = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw);
  if (!parts) return `must be an absolute address starting with https://, ${EXAMPLE}`;
  // The host and port follow any user name and password (refused later anyway).
  const authority = (parts[1] ?? '').replace(/^.*@/, '');
  if (authority === '' || authority.startsWith(':')) return `must name a host after the scheme, ${EXAMPLE}`;
  const port = /:([^:\]]*)$/.exec(authority)?.[1];
  if (port !== undefined && port !== '') {
    if (!/^\d+$/.test(port)) return 'has a port that is not a number; a port is a number from 1 to 65535';
    if (Number(port) > 65_535) return `has the port ${port.slice(0, 12)}; a port is a number from 1 to 65535`;
  }
  return `must be an absolute URL with a valid host name, ${EXAMPLE}`;
}

/**
 * An address as typed at registration (or change): the text itself first, then the guard. The URL
 * parser drops spaces and tabs at either end and inside, reads `https:///x` as the host `x` and
 * takes port 0, so the address stored would not be the one typed, or could never be reached. These
 * rules are for what is typed: an endpoint stored before them is judged at delivery by the guard
 * alone, as it was, not switched off by a rule it was never told of.
 */
export async function checkNewWebhookUrl(raw: string, allowPrivate: boolean): Promise<GuardResult> {
  if (/[\s\p{Cc}]/u.test(raw)) {
    return { ok: false, reason: `must not contain spaces, tabs or line breaks: an absolute address, ${EXAMPLE}` };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\/\//i.test(raw)) return { ok: false, reason: `must name a host after the scheme, ${EXAMPLE}` };
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:0+(?:[/?#]|$)/i.test(raw)) {
    return { ok: false, reason: 'has the port 0; a port is a number from 1 to 65535' };
  }
  return checkWebhookUrl(raw, allowPrivate);
}

/**
 * How long a host's name may take to resolve. The system resolver has no timeout of its own, and a
 * batch of deliveries waits for its slowest: one member's slow DNS must not hold the others' past
 * their lease (another instance would then send them again).
 */
const LOOKUP_TIMEOUT_MS = 3000;
const LOOKUP_TIMED_OUT = Symbol('lookup timed out');

async function lookupWithin(host: string, ms: number): Promise<Array<{ address: string; family: number }>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(LOOKUP_TIMED_OUT), ms);
    timer.unref();
  });
  try {
    return await Promise.race([lookup(host, { all: true, verbatim: true }), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The server-side request forgery guard, run at registration and before every delivery: the URL
 * must be https, and every address its host resolves to must be public. The first address is
 * returned so the connection goes to it (a DNS answer that changes between check and connect
 * cannot switch the target). `allowPrivate` (REDFLAG_WEBHOOK_ALLOW_PRIVATE) lifts both rules.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<GuardResult> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: whyNotAUrl(raw) };
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return { ok: false, reason: 'must use https' };
  }
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = ipaddr.isValid(host)
      ? [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }]
      : await lookupWithin(host, LOOKUP_TIMEOUT_MS);
  } catch (error) {
    return {
      ok: false,
      reason: error === LOOKUP_TIMED_OUT ? `host ${host} did not resolve in time` : `host ${host} does not resolve`,
    };
  }
  if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve` };
  if (!allowPrivate) {
    for (const { address } of addresses) {
      const why = refusedAddressReason(address);
      if (why) return { ok: false, reason: `must not resolve to a private address: ${address} ${why}` };
    }
  }
  const first = addresses[0] as { address: string; family: number };
  return { ok: true, target: { url, address: first.address, family: first.family === 6 ? 6 : 4 } };
}
