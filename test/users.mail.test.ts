import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, tokenOf } from './helpers/people.js';
import { createCompany, key } from './helpers/principals.js';
import { buildTestApp, type TestApp } from './helpers/test-app.js';

/** A local SMTP sink: the real protocol, nothing leaves the machine. */
const received: Array<{ to: string[]; body: string }> = [];
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  onData(stream, session, done) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      received.push({ to: session.envelope.rcptTo.map((r) => r.address), body: Buffer.concat(chunks).toString('utf8') });
      done();
    });
  },
});
const PORT = 4425;
let t: TestApp;

beforeAll(async () => {
  await new Promise<void>((resolve) => sink.listen(PORT, '127.0.0.1', resolve));
  t = await buildTestApp({ config: { smtpUrl: `smtp://127.0.0.1:${PORT}`, mailFrom: 'Redflag <desk@redflag.example>' } });
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
});

describe('invitations by e-mail', () => {
  it('e-mails the invite URL when REDFLAG_SMTP_URL is set, and the e-mailed link works', async () => {
    const { apiKey } = await createCompany(t);
    const email = `mailed.${process.pid}@bank.example`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/external/users',
      headers: key(apiKey),
      payload: { email, role: 'analyst' },
    });
    expect(res.statusCode).toBe(201);
    const { inviteUrl, emailed } = res.json().data;
    expect(emailed).toBe(true);
    const mail = received.find((m) => m.to.includes(email));
    expect(mail?.body).toContain('From: Redflag <desk@redflag.example>');
    // Quoted-printable may fold the long URL: compare without soft line breaks.
    const body = (mail?.body ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(body).toContain(inviteUrl);
    expect((await accept(t, tokenOf(inviteUrl))).statusCode).toBe(200);
  });

  it('still answers the invite URL when the mail server is down', async () => {
    const down = await buildTestApp({ config: { smtpUrl: 'smtp://127.0.0.1:4426' } });
    try {
      const { companyId } = await createCompany(down);
      const r = await down.app.admin.users.invite({ companyId, email: `down.${process.pid}@bank.example`, role: 'viewer' });
      expect(r.emailed).toBe(false);
      expect((await accept(down, tokenOf(r.inviteUrl))).statusCode).toBe(200);
    } finally {
      await down.close();
    }
  });
});
