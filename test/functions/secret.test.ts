import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseConfigForLambda } from '#functions/deps.ts';
import { getSecretString } from '#functions/secret.ts';

const bytes = (data: string | ArrayBuffer | ArrayBufferView) =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** The SDK's hash interface over node:crypto, for the SDK's own signer. */
class Sha256 {
  readonly #hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: string | ArrayBuffer | ArrayBufferView) {
    this.#hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.#hash.digest());
  }
}

const CREDENTIALS = {
  accessKeyId: 'AKIDSTANDIN',
  secretAccessKey: 'stand-in-secret-key',
  sessionToken: 'tok',
};
const REGION = 'eu-west-1';
const SECRET = {
  username: 'app_user',
  password: 'p@ss:w/rd?',
  host: 'db.internal',
  port: 5432,
  dbname: 'voice',
};

/**
 * A Secrets Manager stand-in that checks each request's SigV4 signature with the AWS SDK's own
 * signer (the headers the request says it signed, its date), then answers GetSecretValue.
 */
async function verify(req: IncomingMessage, body: string): Promise<boolean> {
  const auth = String(req.headers.authorization ?? '');
  const signed = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(';') ?? [];
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const date = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const headers = Object.fromEntries(signed.map((name) => [name, String(req.headers[name] ?? '')]));
  const signer = new SignatureV4({
    service: 'secretsmanager',
    region: REGION,
    credentials: CREDENTIALS,
    sha256: Sha256,
  });
  const host = String(req.headers.host);
  const expected = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: host.split(':')[0] ?? '',
      path: req.url ?? '/',
      query: {},
      headers,
      body,
    },
    { signingDate: date },
  );
  return signed.length > 0 && expected.headers.authorization === auth;
}

describe('the database secret, read with one signed fetch', () => {
  let server: Server;
  let endpoint: string;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', async () => {
        requests++;
        const ok = await verify(req, body);
        const target = req.headers['x-amz-target'];
        if (!ok || target !== 'secretsmanager.GetSecretValue') {
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify({ __type: 'InvalidSignatureException', message: 'signature mismatch' }));
          return;
        }
        const { SecretId } = JSON.parse(body);
        if (SecretId !== 'arn:secret:db') {
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify({ __type: 'com.amazonaws#ResourceNotFoundException' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify({ ARN: SecretId, Name: 'db', SecretString: JSON.stringify(SECRET) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const env = (overrides: Record<string, string> = {}) => ({
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
    ...overrides,
  });

  it('the stand-in accepts the AWS SDK client itself (its check is a real SigV4 check)', async () => {
    const client = new SecretsManagerClient({ region: REGION, endpoint, credentials: CREDENTIALS });
    const out = await client.send(new GetSecretValueCommand({ SecretId: 'arn:secret:db' }));
    expect(JSON.parse(out.SecretString ?? '')).toEqual(SECRET);
    client.destroy();
  });

  it('reads the secret with a signature the SDK signer agrees with', async () => {
    expect(JSON.parse(await getSecretString('arn:secret:db', env()))).toEqual(SECRET);
  });

  it('is refused with the wrong key, and says why without the secret', async () => {
    const before = requests;
    await expect(getSecretString('arn:secret:db', env({ AWS_SECRET_ACCESS_KEY: 'wrong' }))).rejects.toThrow(
      /400 InvalidSignatureException/,
    );
    await expect(getSecretString('arn:secret:other', env())).rejects.toThrow(/ResourceNotFoundException/);
    expect(requests).toBe(before + 2);
  });

  it('builds the connection URL from the secret, credentials encoded, TLS verified', async () => {
    const config = await databaseConfigForLambda(env({ DATABASE_SECRET_ARN: 'arn:secret:db' }));
    expect(config.kind).toBe('postgres');
    const url = new URL((config as { url: string }).url);
    expect(decodeURIComponent(url.password)).toBe(SECRET.password);
    expect(decodeURIComponent(url.username)).toBe(SECRET.username);
    expect(url.host).toBe('db.internal:5432');
    expect(url.searchParams.get('sslmode')).toBe('verify-full');
  });

  it('refuses a function with neither a secret nor DATABASE_URL: the embedded database is not for Lambda', async () => {
    await expect(databaseConfigForLambda({})).rejects.toThrow('Set DATABASE_URL or DATABASE_SECRET_ARN.');
    expect(await databaseConfigForLambda({ DATABASE_URL: 'postgres://h/db' })).toMatchObject({
      kind: 'postgres',
      url: 'postgres://h/db',
    });
  });
});
