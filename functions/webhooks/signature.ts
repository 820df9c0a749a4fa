import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks' secret form: `whsec_` and the base64 of the key's bytes. */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export const newSecret = () => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

/** `v1,<base64 HMAC-SHA256 of id.timestamp.body>` under the secret's key (the bytes after `whsec_`). */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The `webhook-*` headers of one attempt: a signature per live secret, space-separated. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  now = Date.now(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  };
}
