import { createHash, createHmac } from 'node:crypto';

/**
 * Secrets Manager's GetSecretValue as one SigV4-signed `fetch`, with node:crypto only. Importing
 * the AWS SDK's Secrets Manager client (its middleware stack, credential chain and protocol code)
 * took ~80 ms of every cold start; this takes none at import and one HTTPS request when called.
 * Credentials and region are the ones Lambda puts in the environment; `AWS_ENDPOINT_URL_SECRETS_MANAGER`
 * (or `AWS_ENDPOINT_URL`) points it elsewhere, as it does the SDK (the tests' local stand-in).
 */
export async function getSecretString(
  secretId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!region || !accessKeyId || !secretAccessKey) {
    throw new Error('AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are needed to read the secret');
  }
  const endpoint = new URL(
    env.AWS_ENDPOINT_URL_SECRETS_MANAGER ??
      env.AWS_ENDPOINT_URL ??
      `https://secretsmanager.${region}.amazonaws.com`,
  );
  const body = JSON.stringify({ SecretId: secretId });
  const headers = signedHeaders({
    url: endpoint,
    region,
    service: 'secretsmanager',
    body,
    credentials: { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN },
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'secretsmanager.GetSecretValue',
    },
    now: new Date(),
  });
  const response = await fetch(endpoint, {
    method: 'POST',
    headers,
    body,
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  if (!response.ok) {
    // The error's type only (e.g. ResourceNotFoundException): nothing of the secret or the request.
    const type = safeJson(text)?.__type ?? 'unknown error';
    throw new Error(`GetSecretValue failed: ${response.status} ${String(type).split('#').pop()}`);
  }
  const secret = safeJson(text)?.SecretString;
  if (typeof secret !== 'string') throw new Error('GetSecretValue returned no SecretString');
  return secret;
}

const safeJson = (text: string): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

export interface SigningInput {
  url: URL;
  region: string;
  service: string;
  body: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  headers: Record<string, string>;
  now: Date;
}

/** The request's headers with AWS Signature Version 4 added (POST, no query string). */
export function signedHeaders(input: SigningInput): Record<string, string> {
  const amzDate = input.now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256(input.body);
  const headers: Record<string, string> = {
    ...input.headers,
    host: input.url.host,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': payloadHash,
    ...(input.credentials.sessionToken ? { 'x-amz-security-token': input.credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers)
    .map((name) => name.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v.trim()]));
  const canonical = [
    'POST',
    input.url.pathname || '/',
    '',
    ...names.map((name) => `${name}:${lower[name]}`),
    '',
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${input.credentials.secretAccessKey}`, day), input.region), input.service),
    'aws4_request',
  );
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  const { host: _host, ...sent } = headers; // fetch sets Host itself
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}
