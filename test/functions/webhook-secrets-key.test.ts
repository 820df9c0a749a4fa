import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretBox, stageSecretBox } from '#functions/webhooks/secrets.ts';

const KEY_TEXT = `${'Q'.repeat(20)}abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH`;
const ARN = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:webhooks-AbCdEf';

/**
 * A deployed stage's data key for the signing secrets: read through the real Secrets Manager
 * client (AWS_ENDPOINT_URL_SECRETS_MANAGER at a stand-in that answers GetSecretValue), once per
 * container, and used to seal and open as the local box does.
 */
describe('the signing secrets key from Secrets Manager (WEBHOOK_SECRETS_ARN)', () => {
  let server: Server;
  const asked: string[] = [];
  let answer: string | undefined = 'short';
  const saved = { ...process.env };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        const signed = req.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ');
        const { SecretId } = JSON.parse(body || '{}') as { SecretId?: string };
        asked.push(String(SecretId));
        if (!signed || req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue' || SecretId !== ARN) {
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify({ __type: 'com.amazonaws#ResourceNotFoundException' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify({ ARN, Name: 'webhooks', SecretString: answer }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
  });
  afterAll(async () => {
    process.env = saved;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a secret that is not the generated text, and asks again on the next call', async () => {
    await expect(stageSecretBox({ WEBHOOK_SECRETS_ARN: ARN })).rejects.toThrow(/not the generated text/);
    answer = KEY_TEXT;
    const box = await stageSecretBox({ WEBHOOK_SECRETS_ARN: ARN });
    expect(asked).toEqual([ARN, ARN]);
    const sealed = box.seal('whsec_secret', 'endpoint1');
    expect(sealed).toMatch(/^v1\.sm1\./);
    expect(box.open(sealed, 'endpoint1')).toBe('whsec_secret');
    expect(() => box.open(sealed, 'endpoint2')).toThrow();
  });

  it('reads the secret once per container, and seals under nothing but that text', async () => {
    const box = await stageSecretBox({ WEBHOOK_SECRETS_ARN: ARN });
    expect(asked).toHaveLength(2);
    const sealed = box.seal('whsec_other', 'endpoint1');
    const otherText = secretBox(new Map([['sm1', Buffer.alloc(32, 1)]]), 'sm1');
    expect(() => otherText.open(sealed, 'endpoint1')).toThrow();
  });
});
