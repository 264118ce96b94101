// An invitation or a link to choose a new password is checked before its form is shown (decision
// 0134): the page says whom the link is for and which member they join, or that it no longer works,
// before anything is typed. The check uses nothing up; a check that fails leaves the form as it was.
import type { paths } from '../client/src/index.js';
import { api, byId, momentText } from './common.js';

export type LinkKind = 'invitation' | 'password_reset';
/** What the service says a working link is for: purpose, address, member and end. */
type CheckedLink = paths['/api/v1/auth/links/check']['post']['responses'][200]['content']['application/json']['data']['link'];

/** What a person reads when a link no longer works, on opening it or after sending its form, with the way on. */
export const LINK_ENDED: Record<LinkKind, string> = {
  // The service says only that a link does not work, not why: a link cut short when copied reads the same.
  invitation:
    'This invitation has already been used or has expired, or its link was not copied whole. If you joined already, sign in below. If not, ask whoever invited you to send a new invitation.',
  // Not only "ask below": without e-mail the form below can send nothing, and only an administrator can.
  password_reset:
    'This link has already been used or has expired, or was not copied whole. Ask the administrator who sent it for a new one, or, if Redflag e-mailed it to you, ask for a new one below.',
};

/**
 * What the service says of a link: it works (and what for), it has ended (400 LINK_INVALID), or
 * nothing is known: the network, a 5xx or the rate limit. Then the form is shown anyway and its
 * answer tells; a check that failed never keeps a person out.
 */
export async function checkLink(
  token: string,
): Promise<{ state: 'works'; link: CheckedLink } | { state: 'ended' } | { state: 'unknown' }> {
  try {
    // A check that hangs must not keep the form away either: after 8 s it counts as failed.
    const { data, error } = await api.POST('/api/v1/auth/links/check', { body: { token }, signal: AbortSignal.timeout(8_000) });
    if (data) return { state: 'works', link: data.data.link };
    return (error as { data?: { code?: string } } | undefined)?.data?.code === 'LINK_INVALID'
      ? { state: 'ended' }
      : { state: 'unknown' };
  } catch {
    return { state: 'unknown' };
  }
}

const PAGES = {
  invitation: { prefix: 'accept', until: 'This invitation works until' },
  password_reset: { prefix: 'reset', until: 'This link works until' },
} as const;

/** Each page's heading as written in the page: what it says when the check could not tell more. */
const writtenTitles = new Map<LinkKind, string>();

/**
 * Writes on the link's page what the check found: the member in an invitation's heading, the
 * address in a read-only username field (so a password manager saves
 * the new password for the right account) and when the link ends. Without `link` (the check
 * failed), the page as written, without the address.
 */
export function describeLink(kind: LinkKind, link?: CheckedLink): void {
  const { prefix, until } = PAGES[kind];
  const title = byId(`${prefix}-title`);
  if (!writtenTitles.has(kind)) writtenTitles.set(kind, title.textContent ?? '');
  // The address stays out of the heading: the heading becomes the window's title, which the
  // browser keeps in its history. The member's name is no one's personal data.
  title.textContent = link && kind === 'invitation' ? `Join ${link.memberName} on Redflag` : (writtenTitles.get(kind) ?? '');
  byId<HTMLInputElement>(`${prefix}-email`).value = link?.email ?? '';
  byId(`${prefix}-email-box`).hidden = !link;
  const ends = byId(`${prefix}-until`);
  ends.textContent = link ? `${until} ${momentText(link.expiresAt)}.` : '';
  ends.hidden = !link;
}
