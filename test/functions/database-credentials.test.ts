import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Signer } from '@aws-sdk/rds-signer';
import { SignatureV4 } from '@smithy/signature-v4';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseUrlWithToken } from '#functions/database-token.ts';
import { databaseConfigForLambda, refreshingDatabaseConfig } from '#functions/deps.ts';

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
/** What RDS keeps for a cluster whose master password it manages (manageMasterUserPassword). */
const RDS_SECRET = { username: 'postgres', password: 'r#ds/kept:pw' };

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

describe('the master secret, read by the migration function through the AWS SDK', () => {
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
        const value =
          SecretId === 'arn:secret:db' ? SECRET : SecretId === 'arn:secret:rds' ? RDS_SECRET : undefined;
        if (!value) {
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify({ __type: 'com.amazonaws#ResourceNotFoundException' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify({ ARN: SecretId, Name: 'db', SecretString: JSON.stringify(value) }));
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

  // The SDK reads its credentials and endpoint from process.env, as in Lambda.
  const saved = { ...process.env };
  const useEnv = (vars: Record<string, string>) => Object.assign(process.env, vars);
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('the stand-in accepts the AWS SDK client itself (its check is a real SigV4 check)', async () => {
    const client = new SecretsManagerClient({ region: REGION, endpoint, credentials: CREDENTIALS });
    const out = await client.send(new GetSecretValueCommand({ SecretId: 'arn:secret:db' }));
    expect(JSON.parse(out.SecretString ?? '')).toEqual(SECRET);
    client.destroy();
  });

  it('builds the connection URL from the secret, credentials encoded, TLS verified', async () => {
    useEnv(env());
    const before = requests;
    const config = await databaseConfigForLambda(env({ DATABASE_SECRET_ARN: 'arn:secret:db' }));
    expect(requests).toBe(before + 1);
    const url = new URL((config as { url: string }).url);
    expect(decodeURIComponent(url.password)).toBe(SECRET.password);
    expect(decodeURIComponent(url.username)).toBe(SECRET.username);
    expect(url.host).toBe('db.internal:5432');
    expect(url.searchParams.get('sslmode')).toBe('verify-full');
  });

  it('reads a secret RDS keeps (user name and password only) with the host and database the stack sets', async () => {
    useEnv(env());
    const config = await databaseConfigForLambda(
      env({
        DATABASE_SECRET_ARN: 'arn:secret:rds',
        DATABASE_HOST: 'cluster.cluster-abc.eu-west-1.rds.amazonaws.com',
        DATABASE_NAME: 'voice_agent_admin',
      }),
    );
    const url = new URL((config as { url: string }).url);
    expect(decodeURIComponent(url.username)).toBe(RDS_SECRET.username);
    expect(decodeURIComponent(url.password)).toBe(RDS_SECRET.password);
    expect(url.host).toBe('cluster.cluster-abc.eu-west-1.rds.amazonaws.com:5432');
    expect(url.pathname).toBe('/voice_agent_admin');
    expect(url.searchParams.get('sslmode')).toBe('verify-full');
  });

  it('fails, naming the error type and not the secret, when the stand-in refuses', async () => {
    useEnv(env({ AWS_SECRET_ACCESS_KEY: 'wrong' }));
    const failure = databaseConfigForLambda(env({ DATABASE_SECRET_ARN: 'arn:secret:db' }));
    await expect(failure).rejects.toThrow(/signature mismatch|InvalidSignature/);
    await expect(failure).rejects.not.toThrow(SECRET.password);
  });

  it('refuses a function with no way to connect: the embedded database is not for Lambda', async () => {
    await expect(databaseConfigForLambda({})).rejects.toThrow(
      'Set DATABASE_URL, DATABASE_IAM_USER or DATABASE_SECRET_ARN.',
    );
    expect(await databaseConfigForLambda({ DATABASE_URL: 'postgres://h/db' })).toMatchObject({
      kind: 'postgres',
      url: 'postgres://h/db',
    });
  });
});

/**
 * The API functions' path: an IAM database token signed in-process (rds-signer's own pieces, functions/database-token.ts) with
 * the function's credentials. No service is called; the token is checked here as RDS checks it,
 * by signing the same request independently with the SDK's SigV4 signer and comparing.
 */
describe('the app role connects with an IAM database token, no password', () => {
  const saved = { ...process.env };
  const lambdaEnv = {
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    DATABASE_IAM_USER: 'voice_agent_app',
    DATABASE_HOST: 'proxy.proxy-abc.eu-west-1.rds.amazonaws.com',
    DATABASE_NAME: 'voice_agent_admin',
    DATABASE_SSLMODE: 'verify-full',
  };
  beforeAll(() => {
    Object.assign(process.env, lambdaEnv);
  });
  afterAll(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  /** What RDS would expect for this token's date: the same presigned `connect`, signed by the SDK's SigV4. */
  async function expectedSignature(token: string): Promise<string | undefined> {
    const url = new URL(`https://${token}`);
    const amzDate = url.searchParams.get('X-Amz-Date') ?? '';
    const date = new Date(
      `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
    );
    const signer = new SignatureV4({
      service: 'rds-db',
      region: REGION,
      credentials: CREDENTIALS,
      sha256: Sha256,
    });
    const presigned = await signer.presign(
      {
        method: 'GET',
        protocol: 'https:',
        hostname: url.hostname,
        port: Number(url.port),
        path: '/',
        query: { Action: 'connect', DBUser: url.searchParams.get('DBUser') ?? '' },
        headers: { host: url.host },
      },
      { signingDate: date, expiresIn: 900 },
    );
    return presigned.query?.['X-Amz-Signature'] as string | undefined;
  }

  it('puts a token for the app role on the proxy as the password, TLS verified', async () => {
    const config = await databaseConfigForLambda(lambdaEnv);
    const url = new URL((config as { url: string }).url);
    expect(url.host).toBe('proxy.proxy-abc.eu-west-1.rds.amazonaws.com:5432');
    expect(url.pathname).toBe('/voice_agent_admin');
    expect(url.username).toBe('voice_agent_app');
    expect(url.searchParams.get('sslmode')).toBe('verify-full');
    const token = decodeURIComponent(url.password);
    const signed = new URL(`https://${token}`);
    expect(signed.host).toBe('proxy.proxy-abc.eu-west-1.rds.amazonaws.com:5432');
    expect(Object.fromEntries(signed.searchParams)).toMatchObject({
      Action: 'connect',
      DBUser: 'voice_agent_app',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': expect.stringMatching(/^AKIDSTANDIN\/\d{8}\/eu-west-1\/rds-db\/aws4_request$/),
      'X-Amz-Expires': '900',
      'X-Amz-Security-Token': CREDENTIALS.sessionToken,
      'X-Amz-SignedHeaders': 'host',
    });
    expect(signed.searchParams.get('X-Amz-Signature')).toBe(await expectedSignature(token));
  });

  it.each([
    { case: 'with a session token (as in Lambda)', port: 5432, sessionToken: 'IQoJb3JpZ2lu+X2Vj/EHca==' },
    { case: 'without one, on another port', port: 6543, sessionToken: undefined },
  ])(
    'is exactly the token @aws-sdk/rds-signer signs for the same request and instant, $case',
    async ({ port, sessionToken }) => {
      vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-24T10:20:30Z') });
      try {
        const env = { ...lambdaEnv, DATABASE_PORT: String(port), AWS_SESSION_TOKEN: sessionToken };
        const ours = decodeURIComponent(new URL(await databaseUrlWithToken(env)).password);
        const theirs = await new Signer({
          hostname: lambdaEnv.DATABASE_HOST,
          port,
          username: lambdaEnv.DATABASE_IAM_USER,
          region: REGION,
          credentials: { ...CREDENTIALS, sessionToken },
        }).getAuthToken();
        expect(ours).toBe(theirs);
        expect(ours).toContain('X-Amz-Date=20261124T102030Z');
      } finally {
        vi.useRealTimers();
      }
    },
  );

  it('is a token another key would not have signed', async () => {
    const token = await databaseUrlWithToken(lambdaEnv);
    const other = decodeURIComponent(
      new URL(await databaseUrlWithToken({ ...lambdaEnv, AWS_SECRET_ACCESS_KEY: 'another-key' })).password,
    );
    expect(new URL(`https://${other}`).searchParams.get('X-Amz-Signature')).not.toBe(
      await expectedSignature(other),
    );
    expect(decodeURIComponent(new URL(token).password)).toContain('X-Amz-Signature=');
  });

  it('reaches the driver intact: postgres.js sends exactly the token as the password', async () => {
    const url = await databaseUrlWithToken(lambdaEnv);
    const sql = postgres(url, { max: 1 });
    try {
      expect(sql.options.user).toBe('voice_agent_app');
      expect(sql.options.pass).toBe(decodeURIComponent(new URL(url).password));
      expect(String(sql.options.pass)).toMatch(
        /^proxy\.proxy-abc\.eu-west-1\.rds\.amazonaws\.com:5432\/\?Action=connect&/,
      );
    } finally {
      await sql.end();
    }
  });

  it('signs a fresh token when the server refuses the one it has (after 15 minutes, on a new connection)', async () => {
    const config = await refreshingDatabaseConfig(lambdaEnv);
    const fresh = await config.refreshUrl?.();
    expect(fresh).toBeDefined();
    const token = decodeURIComponent(new URL(fresh ?? '').password);
    expect(new URL(`https://${token}`).searchParams.get('X-Amz-Signature')).toBe(
      await expectedSignature(token),
    );
  });

  it('says what is missing rather than signing for nobody', async () => {
    await expect(databaseUrlWithToken({ ...lambdaEnv, DATABASE_HOST: '' })).rejects.toThrow(
      'DATABASE_HOST, DATABASE_IAM_USER and AWS_REGION are needed to sign a database token',
    );
    await expect(databaseUrlWithToken({ ...lambdaEnv, AWS_SECRET_ACCESS_KEY: undefined })).rejects.toThrow(
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are needed to sign a database token',
    );
  });

  it('signs without a session token when the environment has none (long-term keys)', async () => {
    const url = await databaseUrlWithToken({ ...lambdaEnv, AWS_SESSION_TOKEN: undefined });
    const token = decodeURIComponent(new URL(url).password);
    expect(new URL(`https://${token}`).searchParams.has('X-Amz-Security-Token')).toBe(false);
  });
});
