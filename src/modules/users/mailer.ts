import nodemailer from 'nodemailer';

export interface InvitationMail {
  to: string;
  inviteUrl: string;
  expiresAt: Date;
  inviter: string;
}

export interface PasswordResetMail {
  to: string;
  resetUrl: string;
  expiresAt: Date;
  /** The member the account belongs to: one address may have accounts at several. */
  member: string;
  /** Who asked: the person themselves, from the sign-in page, or an administrator. */
  askedBy: 'self' | 'admin';
}

/** Told to the person whose second factor an administrator took away: if it was not them asking, they must know. */
export interface SecondFactorResetMail {
  to: string;
  member: string;
}

/**
 * What happened to a member's watched customers since the person was last told (decision 0140):
 * counts only. No value, name or report leaves in a mail; the desk's Watchlist page says which.
 */
export interface WatchlistAlertMail {
  to: string;
  member: string;
  /** Reports newly naming a watched customer. */
  matches: number;
  /** Reports about them withdrawn from the list, or back on it. */
  changes: number;
  /** The desk's Watchlist page. */
  deskUrl: string;
}

export interface Mailer {
  sendInvitation(mail: InvitationMail): Promise<void>;
  sendPasswordReset(mail: PasswordResetMail): Promise<void>;
  sendSecondFactorReset(mail: SecondFactorResetMail): Promise<void>;
  sendWatchlistAlert(mail: WatchlistAlertMail): Promise<void>;
  close(): void;
}

/**
 * Sends invitations through the SMTP server at `smtpUrl` (smtp:// or smtps://, credentials in the
 * URL). Without one there is no mailer: the invite URL returned to the inviter is what is handed over.
 */
export function createMailer(smtpUrl: string | undefined, from: string): Mailer | undefined {
  if (!smtpUrl) return undefined;
  // Nodemailer waits up to 2 minutes to connect and 10 for a silent server: a request sending a
  // password link, or the alerts job's run, would hang as long.
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async sendInvitation({ to, inviteUrl, expiresAt, inviter }) {
      await transport.sendMail({
        from,
        to,
        subject: 'Your Redflag account',
        text: [
          `${inviter} invited you to Redflag, the shared fraud-report registry.`,
          '',
          'Choose your password here (the link works once):',
          inviteUrl,
          '',
          `It expires at ${expiresAt.toISOString()}.`,
        ].join('\n'),
      });
    },
    async sendPasswordReset({ to, resetUrl, expiresAt, member, askedBy }) {
      await transport.sendMail({
        from,
        to,
        subject: 'Choose a new Redflag password',
        text: [
          askedBy === 'self'
            ? `Someone asked to reset the password of your Redflag account at ${member}.`
            : `An administrator sent you a link to choose a new password for your Redflag account at ${member}.`,
          '',
          'Choose a new password here (the link works once):',
          resetUrl,
          '',
          `It expires at ${expiresAt.toISOString()}. Your second factor, if you have one, is still needed to sign in.`,
          askedBy === 'self' ? 'If you did not ask, ignore this e-mail: your password stays as it is.' : '',
        ]
          .join('\n')
          .trimEnd(),
      });
    },
    async sendSecondFactorReset({ to, member }) {
      await transport.sendMail({
        from,
        to,
        subject: 'Your Redflag second factor was reset',
        text: [
          `An administrator reset the second factor of your Redflag account at ${member}: your authenticator app and recovery codes no longer work, and you set up a new one at your next sign-in.`,
          '',
          'If you did not ask for this, tell your administrator at once.',
        ].join('\n'),
      });
    },
    async sendWatchlistAlert({ to, member, matches, changes, deskUrl }) {
      const reports = (n: number) => (n === 1 ? '1 report' : `${n} reports`);
      const lines = [
        matches > 0 ? `${reports(matches)} newly named customers ${member} watches in Redflag.` : '',
        changes > 0 ? `${reports(changes)} about customers ${member} watches left the list or came back to it.` : '',
      ].filter(Boolean);
      await transport.sendMail({
        from,
        to,
        subject: matches > 0 ? 'Redflag: a report names a customer you watch' : 'Redflag: news about customers you watch',
        text: [
          ...lines,
          '',
          'See which, and search them, on the Watchlist page of the desk (sign in first):',
          deskUrl,
          '',
          'This e-mail names no one, on purpose. To stop these e-mails, turn alerts off on the "Your account" page of the desk.',
        ].join('\n'),
      });
    },
    close: () => transport.close(),
  };
}
