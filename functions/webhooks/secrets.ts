import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Seals and opens endpoints' signing secrets: AES-256-GCM under a data key, the endpoint's id as
 * associated data (a sealed secret copied onto another endpoint does not open). The stored form
 * is `v1.<keyId>.<base64url nonce|ciphertext|tag>`, so a new data key can come in beside the old.
 */
export interface SecretBox {
  seal(secret: string, endpointId: string): string;
  open(sealed: string, endpointId: string): string;
}

/** A box over data keys by id; `current` seals. */
export function secretBox(keys: ReadonlyMap<string, Buffer>, current: string): SecretBox {
  const keyOf = (id: string) => {
    const key = keys.get(id);
    if (!key) throw new Error(`No data key "${id}" to open a webhook secret with`);
    return key;
  };
  return {
    seal(secret, endpointId) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyOf(current), nonce);
      cipher.setAAD(Buffer.from(endpointId));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `v1.${current}.${Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url')}`;
    },
    open(text, endpointId) {
      const [version, id, payload, ...rest] = text.split('.');
      if (version !== 'v1' || !id || !payload || rest.length > 0)
        throw new Error('Not a sealed webhook secret');
      const bytes = Buffer.from(payload, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', keyOf(id), bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(endpointId));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([
        decipher.update(bytes.subarray(12, bytes.length - 16)),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

/**
 * The box from the environment: `WEBHOOK_SECRETS_KEY` (base64 of 32 bytes; on AWS the data key
 * KMS decrypts once per container), under the id
 * `WEBHOOK_SECRETS_KEY_ID`. Without it, a key derived from a fixed text: the local server's and
 * the tests', which protects nothing and is refused inside Lambda.
 */
export function secretBoxFromEnv(env: Record<string, string | undefined> = process.env): SecretBox {
  const given = env.WEBHOOK_SECRETS_KEY;
  if (given) {
    const key = Buffer.from(given, 'base64');
    if (key.length !== 32) throw new Error('WEBHOOK_SECRETS_KEY must be the base64 of 32 bytes');
    const id = env.WEBHOOK_SECRETS_KEY_ID ?? 'k1';
    return secretBox(new Map([[id, key]]), id);
  }
  // A deployed function never seals with the local key: without a data key, no secrets at all.
  if (env.AWS_LAMBDA_FUNCTION_NAME) throw new Error('Set WEBHOOK_SECRETS_KEY on a deployed stage');
  const local = createHash('sha256').update('webhook-secrets.local.v1').digest();
  return secretBox(new Map([['local', local]]), 'local');
}

/** The digits and letters of the stack's generated key text (infra/constructs/webhooks.ts). */
export const KEY_TEXT_LENGTH = 64;

let stageBox: Promise<SecretBox> | undefined;

/**
 * The box of a deployed stage with webhooks: its data key is the random text the stack generated
 * into the secret WEBHOOK_SECRETS_ARN, encrypted there under the stage's own KMS key, read once
 * per container through the Secrets Manager endpoint (one KMS decrypt on Secrets Manager's side)
 * and hashed to 32 bytes. Without WEBHOOK_SECRETS_ARN, the environment's box (secretBoxFromEnv).
 */
export function stageSecretBox(env: Record<string, string | undefined> = process.env): Promise<SecretBox> {
  const arn = env.WEBHOOK_SECRETS_ARN;
  if (!arn) return Promise.resolve().then(() => secretBoxFromEnv(env));
  stageBox ??= (async () => {
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const answer = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
    const text = answer.SecretString ?? '';
    if (text.length < KEY_TEXT_LENGTH) throw new Error('The webhook secrets key is not the generated text');
    const key = createHash('sha256').update(text).digest();
    return secretBox(new Map([['sm1', key]]), 'sm1');
  })().catch((error: unknown) => {
    stageBox = undefined;
    throw error;
  });
  return stageBox;
}
