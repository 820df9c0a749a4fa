import { formatUrl } from '@aws-sdk/core/util';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * An IAM database authentication token for the app role: a SigV4-presigned `connect` request,
 * signed in-process with the function's own credentials (no network call, no password anywhere).
 * Valid 15 minutes for opening connections; an open connection outlives it.
 * `DATABASE_HOST` is RDS Proxy in prod (end-to-end IAM) or the cluster's writer on a preview.
 *
 * Built from the very pieces `@aws-sdk/rds-signer`'s `Signer.getAuthToken()` uses (its SigV4
 * signer, request, hash and URL formatting), with the credentials read from the environment as
 * Lambda provides them. The signer package itself also pulls in the SDK's whole credential chain
 * (SSO, INI files, IMDS, web identity...), which a Lambda never uses and which tripled the bundle
 * and its import time (docs/decisions.md). A test holds the token equal to rds-signer's.
 * Imported statically by name here (so the bundler keeps only these pieces) and lazily by
 * functions/deps.ts: only the container's first connection, and a refused one, load it.
 */
export async function databaseUrlWithToken(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const hostname = env.DATABASE_HOST;
  const username = env.DATABASE_IAM_USER;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!hostname || !username || !region) {
    throw new Error('DATABASE_HOST, DATABASE_IAM_USER and AWS_REGION are needed to sign a database token');
  }
  const port = Number(env.DATABASE_PORT ?? 5432);
  const token = await signConnectToken({
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

/** `Signer.getAuthToken()` of `@aws-sdk/rds-signer`, step for step, with environment credentials. */
async function signConnectToken({
  hostname,
  port,
  username,
  region,
  credentials,
}: ConnectTarget): Promise<string> {
  const signer = new SignatureV4({ service: 'rds-db', region, credentials, sha256: Sha256 });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname,
    port,
    query: { Action: 'connect', DBUser: username },
    headers: { host: `${hostname}:${port}` },
  });
  const presigned = await signer.presign(request, { expiresIn: 900 });
  return formatUrl(presigned).replace('https://', '');
}
