import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      logLevel: 'info',
      databaseUrl: undefined,
      redisUrl: undefined,
    });
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
  });

  it('reads every documented variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      REDFLAG_DATA_DIR: '/var/lib/redflag',
      DATABASE_URL: 'postgres://u@db:5432/redflag',
      REDIS_URL: 'redis://cache:6379',
      REDFLAG_MASTER_KEY: 'a2V5',
      REDFLAG_PUBLIC_URL: 'https://redflag.example.ng/',
      LOG_LEVEL: 'warn',
      REDFLAG_RATE_LIMIT_PER_MINUTE: '1200',
      REDFLAG_REDIS_PREFIX: 'rf-prod:',
      REDFLAG_KEY_LAST_USED_FLUSH_MS: '2000',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/redflag',
      databaseUrl: 'postgres://u@db:5432/redflag',
      redisUrl: 'redis://cache:6379',
      masterKey: 'a2V5',
      publicUrl: 'https://redflag.example.ng',
      logLevel: 'warn',
      rateLimitPerMinute: 1200,
      redisPrefix: 'rf-prod:',
      keyLastUsedFlushMs: 2000,
      controlSocketPath: '/var/lib/redflag/redflag.sock',
    });
  });

  it('limits each key to 600 requests a minute and prefixes Redis keys with redflag: by default', () => {
    expect(loadConfig({})).toMatchObject({ rateLimitPerMinute: 600, redisPrefix: 'redflag:', keyLastUsedFlushMs: 5000 });
  });

  it('limits uploads to 5 MiB, signs download links for 15 minutes and limits public intake per address', () => {
    expect(loadConfig({})).toMatchObject({
      uploadMaxBytes: 5_242_880,
      attachmentUrlTtlSeconds: 900,
      publicReportsPerHour: 10,
      publicUploadsPerHour: 6,
    });
    expect(
      loadConfig({
        REDFLAG_UPLOAD_MAX_BYTES: '1048576',
        REDFLAG_ATTACHMENT_URL_TTL_SECONDS: '300',
        REDFLAG_PUBLIC_REPORTS_PER_HOUR: '20',
        REDFLAG_PUBLIC_UPLOADS_PER_HOUR: '4',
      }),
    ).toMatchObject({
      uploadMaxBytes: 1_048_576,
      attachmentUrlTtlSeconds: 300,
      publicReportsPerHour: 20,
      publicUploadsPerHour: 4,
    });
    expect(() => loadConfig({ REDFLAG_UPLOAD_MAX_BYTES: '10' })).toThrow(/REDFLAG_UPLOAD_MAX_BYTES/);
    expect(() => loadConfig({ REDFLAG_ATTACHMENT_URL_TTL_SECONDS: '0' })).toThrow(/REDFLAG_ATTACHMENT_URL_TTL_SECONDS/);
  });

  it('reads the people settings: sessions, invitations, TOTP, mail, sign-in throttling', () => {
    expect(loadConfig({})).toMatchObject({
      sessionIdleMinutes: 30,
      sessionAbsoluteHours: 12,
      invitationTtlHours: 72,
      passwordResetTtlHours: 24,
      totpRequiredForAll: false,
      smtpUrl: undefined,
      signInFailuresPerAccount: 5,
      signInFailuresPerAddress: 20,
    });
    expect(
      loadConfig({
        REDFLAG_SESSION_IDLE_MINUTES: '15',
        REDFLAG_SESSION_ABSOLUTE_HOURS: '8',
        REDFLAG_INVITATION_TTL_HOURS: '24',
        REDFLAG_PASSWORD_RESET_TTL_HOURS: '2',
        REDFLAG_TOTP_REQUIRED_FOR_ALL: 'true',
        REDFLAG_SMTP_URL: 'smtps://user:pass@mail.example.ng:465',
        REDFLAG_MAIL_FROM: 'Desk <desk@example.ng>',
        REDFLAG_SIGN_IN_FAILURES_PER_ACCOUNT: '3',
        REDFLAG_SIGN_IN_FAILURES_PER_ADDRESS: '50',
      }),
    ).toMatchObject({
      sessionIdleMinutes: 15,
      sessionAbsoluteHours: 8,
      invitationTtlHours: 24,
      passwordResetTtlHours: 2,
      totpRequiredForAll: true,
      smtpUrl: 'smtps://user:pass@mail.example.ng:465',
      mailFrom: 'Desk <desk@example.ng>',
      signInFailuresPerAccount: 3,
      signInFailuresPerAddress: 50,
    });
    expect(() => loadConfig({ REDFLAG_SMTP_URL: 'http://mail.example.ng' })).toThrow(/REDFLAG_SMTP_URL/);
    expect(() => loadConfig({ REDFLAG_TOTP_REQUIRED_FOR_ALL: 'yes' })).toThrow(/REDFLAG_TOTP_REQUIRED_FOR_ALL/);
    expect(() => loadConfig({ REDFLAG_PASSWORD_RESET_TTL_HOURS: '0' })).toThrow(/REDFLAG_PASSWORD_RESET_TTL_HOURS/);
  });

  it("reads the operators' contact address for people outside: none by default, an e-mail address or a clear refusal", () => {
    expect(loadConfig({}).contactEmail).toBeUndefined();
    expect(loadConfig({ REDFLAG_CONTACT_EMAIL: ' privacy@redflag.example.ng ' }).contactEmail).toBe('privacy@redflag.example.ng');
    for (const bad of [
      'privacy',
      'privacy@redflag',
      'Team <privacy@redflag.ng>',
      `${'a'.repeat(250)}@redflag.ng`,
      'privacy@redflag.ng?bcc=someone@example.com',
      'privacy@redflag.ng#x',
    ]) {
      expect(() => loadConfig({ REDFLAG_CONTACT_EMAIL: bad }), bad).toThrow(/REDFLAG_CONTACT_EMAIL must be an e-mail address/);
    }
  });

  it("reads a screening job's pace: none, or one whose wait after a chunk stays well inside its lease", () => {
    const pace = (value?: string) =>
      loadConfig(value === undefined ? {} : { REDFLAG_SCREENING_ROWS_PER_SECOND: value }).screeningRowsPerSecond;
    expect(pace()).toBe(12_000);
    expect(pace('0')).toBe(0);
    expect(pace('1000')).toBe(1_000);
    expect(pace('10000000')).toBe(10_000_000);
    for (const bad of ['999', '1', '-5', 'abc', '1500.5', '10000001']) {
      expect(() => pace(bad), bad).toThrow(/REDFLAG_SCREENING_ROWS_PER_SECOND must be 0 \(no cap\) or an integer from 1000/);
    }
  });

  it('refuses values it cannot use, naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/PORT must be an integer/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ REDFLAG_RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/REDFLAG_RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ REDFLAG_REDIS_PREFIX: 'has space' })).toThrow(/REDFLAG_REDIS_PREFIX/);
  });
});

describe('REDFLAG_TRUST_PROXY', () => {
  it('reads off, on, a hop count or a list of addresses, and refuses anything else', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ REDFLAG_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ REDFLAG_TRUST_PROXY: '10.0.0.0/8, 192.168.1.5' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.5']);
    expect(() => loadConfig({ REDFLAG_TRUST_PROXY: 'my-load-balancer' })).toThrow(/REDFLAG_TRUST_PROXY/);
    // "Any proxy" would let every client write its own address into X-Forwarded-For.
    expect(() => loadConfig({ REDFLAG_TRUST_PROXY: 'true' })).toThrow(/name the proxies/);
  });
});
