import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks headers for one message. Every secret given signs it (space-separated
 * `v1,<base64>` entries), so during a rotation's overlap receivers holding either secret verify.
 * Signed by the `standardwebhooks` package itself, the reference implementation.
 */
export function signedHeaders(secrets: readonly string[], msgId: string, timestamp: Date, body: string) {
  const signature = secrets.map((secret) => new Webhook(secret).sign(msgId, timestamp, body)).join(' ');
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}
