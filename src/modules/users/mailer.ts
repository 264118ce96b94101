import nodemailer from 'nodemailer';

export interface InvitationMail {
  to: string;
  inviteUrl: string;
  expiresAt: Date;
  inviter: string;
}

export interface Mailer {
  sendInvitation(mail: InvitationMail): Promise<void>;
  close(): void;
}

/**
 * Sends invitations through the SMTP server at `smtpUrl` (smtp:// or smtps://, credentials in the
 * URL). Without one there is no mailer: the invite URL returned to the inviter is what is handed over.
 */
export function createMailer(smtpUrl: string | undefined, from: string): Mailer | undefined {
  if (!smtpUrl) return undefined;
  const transport = nodemailer.createTransport(smtpUrl);
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
    close: () => transport.close(),
  };
}
