import { createHash, createHmac } from 'node:crypto';

/**
 * An IAM database authentication token for the app role: a SigV4-presigned `connect` request,
 * signed in-process with the function's own credentials (no network call, no password anywhere).
 * Valid 15 minutes for opening connections; an open connection outlives it.
 * `DATABASE_HOST` is RDS Proxy in prod (end-to-end IAM) or the cluster's writer on a preview.
 *
 * The signature is `@aws-sdk/rds-signer`'s `Signer.getAuthToken()` step for step, written over
 * node:crypto so that no SDK code enters a function's bundle or its cold start (docs/decisions.md).
 * A test holds the token equal to rds-signer's, with and without a session token. Imported lazily
 * by functions/deps.ts: only the container's first connection, and a refused one, load it.
 */
export async function databaseUrlWithToken(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const hostname = env.DATABASE_HOST;
  const username = env.DATABASE_IAM_USER;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!hostname || !username || !region) {
    throw new Error('DATABASE_HOST, DATABASE_IAM_USER and AWS_REGION are needed to sign a database token');
  }
  const port = Number(env.DATABASE_PORT ?? 5432);
  const token = signConnectToken({
    hostname,
    port,
    username,
    region,
    credentials: credentialsFrom(env),
  });
  const url = new URL(`postgres://${hostname}:${port}/${env.DATABASE_NAME ?? 'postgres'}`);
  url.username = encodeURIComponent(username);
  url.password = encodeURIComponent(token);
  // IAM authentication is refused without TLS; the token must never cross the network in clear.
  url.searchParams.set('sslmode', env.DATABASE_SSLMODE ?? 'verify-full');
  return url.toString();
}

/** What SigV4 signs with (the SDK's `AwsCredentialIdentity`). */
interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

interface ConnectTarget {
  hostname: string;
  port: number;
  username: string;
  region: string;
  credentials: Credentials;
}

/**
 * The function's role credentials, as Lambda puts them in the environment: what
 * `@aws-sdk/credential-provider-env`'s `fromEnv()` reads, without the SDK's client configuration
 * (endpoint partitions, shared INI files) that package brings into the bundle.
 */
function credentialsFrom(env: NodeJS.ProcessEnv): Credentials {
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are needed to sign a database token');
  }
  return { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN || undefined };
}

/** RFC 3986 strict: what SigV4 escapes, `encodeURIComponent` and then `!'()*` too. */
const uriEscape = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const sha256Hex = (data: string) => createHash('sha256').update(data).digest('hex');

/** The query string, keys sorted, each key and value escaped: canonical and sent alike. */
const queryString = (query: Record<string, string>) =>
  Object.keys(query)
    .sort()
    .map((key) => `${uriEscape(key)}=${uriEscape(query[key] as string)}`)
    .join('&');

/**
 * `Signer.getAuthToken()` of `@aws-sdk/rds-signer`: a SigV4 presigned `GET /?Action=connect`
 * (AWS's "Create a signed AWS API request", query-string authentication), host the only signed
 * header, an empty payload, valid 900 seconds; the token is the URL without its scheme.
 */
function signConnectToken({ hostname, port, username, region, credentials }: ConnectTarget): string {
  const longDate = new Date()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  const shortDate = longDate.slice(0, 8);
  const scope = `${shortDate}/${region}/rds-db/aws4_request`;
  const host = `${hostname}:${port}`;
  const query: Record<string, string> = {
    Action: 'connect',
    DBUser: username,
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${credentials.accessKeyId}/${scope}`,
    'X-Amz-Date': longDate,
    'X-Amz-Expires': '900',
    ...(credentials.sessionToken ? { 'X-Amz-Security-Token': credentials.sessionToken } : {}),
    'X-Amz-SignedHeaders': 'host',
  };
  const canonicalRequest = ['GET', '/', queryString(query), `host:${host}`, '', 'host', sha256Hex('')].join(
    '\n',
  );
  const stringToSign = ['AWS4-HMAC-SHA256', longDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = ['rds-db', 'aws4_request'].reduce(
    (k, part) => hmac(k, part),
    hmac(hmac(`AWS4${credentials.secretAccessKey}`, shortDate), region),
  );
  const signature = hmac(key, stringToSign).toString('hex');
  return `${host}/?${queryString({ ...query, 'X-Amz-Signature': signature })}`;
}
