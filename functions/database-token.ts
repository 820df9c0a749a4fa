/**
 * An IAM database authentication token for the app role: a SigV4-presigned `connect` request,
 * signed in-process by the AWS SDK with the function's own credentials (no network call, no
 * password anywhere). Valid 15 minutes for opening connections; an open connection outlives it.
 * `DATABASE_HOST` is RDS Proxy in prod (end-to-end IAM) or the cluster's writer on a preview.
 */
export async function databaseUrlWithToken(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const hostname = env.DATABASE_HOST;
  const username = env.DATABASE_IAM_USER;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!hostname || !username || !region) {
    throw new Error('DATABASE_HOST, DATABASE_IAM_USER and AWS_REGION are needed to sign a database token');
  }
  const port = Number(env.DATABASE_PORT ?? 5432);
  // Loaded on first use, not at module init: the signer and its credential chain are most of the
  // bundle, and only the container's first connection (and a refused one) needs them.
  const { Signer } = await import('@aws-sdk/rds-signer');
  const token = await new Signer({ hostname, port, username, region }).getAuthToken();
  const url = new URL(`postgres://${hostname}:${port}/${env.DATABASE_NAME ?? 'postgres'}`);
  url.username = encodeURIComponent(username);
  url.password = encodeURIComponent(token);
  // IAM authentication is refused without TLS; the token must never cross the network in clear.
  url.searchParams.set('sslmode', env.DATABASE_SSLMODE ?? 'verify-full');
  return url.toString();
}
