import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SqlRunner, Statement } from '#db/database.ts';
import { authenticate } from '#db/queries/api-keys.ts';
import { pageSessionsJson } from '#db/queries/sessions.ts';
import { listen } from '#infra/local/listen.ts';
import { apiEvent } from '#test/helpers/events.ts';
import { selfSignedCertificate, startTlsProxy } from '#test/helpers/tls-proxy.ts';
import { bundle, loadBundle, NODE_OPTIONS, RUNTIME_REQUIRE } from './bundles.ts';
import { median } from './stats.ts';

/**
 * A Lambda's first invocation as far as it can be had locally: a fresh `node` imports the bundle
 * (NODE_OPTIONS as deployed), then calls the handler once, which signs an IAM database token
 * in-process (the SDK twin reads a Secrets Manager stand-in instead) and connects through a TLS
 * front (a self-signed certificate the process trusts through NODE_EXTRA_CA_CERTS, `verify-full`)
 * to the bench database. What never runs here: the Lambda runtime's own init, the VPC network,
 * RDS Proxy, IAM's check of the token, and Secrets Manager's real latency.
 */
export interface FirstInvocation {
  name: string;
  /** The bare handler that sends this one's first statement (for a function of ours). */
  twin?: string;
  /** Median ms: import of the bundle. */
  importMs: number;
  /** Median ms: the first call, from handler(event) to its answer (token, connect, query). */
  firstCallMs: number;
  /** Median ms: process start to the first answer. */
  totalMs: number;
}

/** The bare handler: the same in-process IAM token as the functions, postgres.js, one query. */
const BARE = `import postgres from 'postgres';
import { Signer } from '@aws-sdk/rds-signer';
let sql;
export const handler = async () => {
  if (!sql) {
    const e = process.env;
    const port = Number(e.DATABASE_PORT);
    const password = await new Signer({ hostname: e.DATABASE_HOST, port, username: e.DATABASE_IAM_USER, region: e.AWS_REGION }).getAuthToken();
    sql = postgres({ host: e.DATABASE_HOST, port, database: e.DATABASE_NAME, username: e.DATABASE_IAM_USER, password, ssl: 'verify-full', max: 1, prepare: false });
  }
  const rows = await sql\`select 1 as one\`;
  return { statusCode: 200, body: JSON.stringify(rows) };
};`;

/**
 * The bare handler sending `statement` as the API and the driver row do (with its parameters, an
 * unnamed statement in one flight: db/postgres-driver.ts's options) instead of `select 1`.
 */
const bareSending = (statement: Statement) =>
  BARE.replace(
    'await sql`select 1 as one`',
    `await sql.unsafe(${JSON.stringify(statement.text)}, ${JSON.stringify(statement.values)}, { simple: false, describe: false })`,
  );

/** The statement a query function sends, caught instead of run. */
async function statementOf(query: (runner: SqlRunner) => Promise<unknown>): Promise<Statement> {
  let caught: Statement | undefined;
  const runner: SqlRunner = {
    inTransaction: false,
    rows: async (statement) => {
      caught ??= statement;
      return [];
    },
    transaction: (work) => work(runner),
  };
  await query(runner);
  if (!caught) throw new Error('the query sent no statement');
  return caught;
}

/** The same reading a password from Secrets Manager with the AWS SDK, as the functions did before IAM auth. */
const SDK = `import postgres from 'postgres';
import { SecretsManagerClient, GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
let sql;
export const handler = async () => {
  if (!sql) {
    const s = JSON.parse((await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: process.env.DATABASE_SECRET_ARN }))).SecretString);
    sql = postgres({ host: s.host, port: s.port, database: s.dbname, username: s.username, password: s.password, ssl: 'verify-full', max: 1, prepare: false });
  }
  const rows = await sql\`select 1 as one\`;
  return { statusCode: 200, body: JSON.stringify(rows) };
};`;

const run = promisify(execFile);

export async function measureFirstInvocations(
  outDir: string,
  databaseUrl: string,
  caller: { workspaceId: string; principalId: string; keyId: string; token: string },
  runs: number,
): Promise<FirstInvocation[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vaa-first-'));
  const tls = selfSignedCertificate();
  const certFile = join(dir, 'cert.pem');
  writeFileSync(certFile, tls.cert);
  const target = new URL(databaseUrl);
  const front = await startTlsProxy({ host: target.hostname, port: Number(target.port || 5432) }, tls);
  const secret = JSON.stringify({
    username: decodeURIComponent(target.username) || 'postgres',
    password: decodeURIComponent(target.password) || 'unused',
    host: 'localhost',
    port: front.port,
    dbname: target.pathname.slice(1),
  });
  const secrets = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ ARN: 'arn:bench', Name: 'bench', SecretString: secret }));
    });
  });
  const secretsUrl = await listen(secrets);
  try {
    // Each function's twin: a bare handler whose first statement is the function's own (the
    // statement's cost on a fresh server connection, catalog lookups included, is the same for both).
    const page = await statementOf((runner) => pageSessionsJson(runner, caller, { limit: 25, offset: 0 }));
    const lookup = await statementOf((runner) => authenticate(runner, caller.token));
    const entries: Array<[string, string | { contents: string }, string?]> = [
      ['list-sessions', 'functions/sessions/list.ts', 'bare-postgres: its statement'],
      ['authorizer', 'functions/authorizer.ts', 'bare-postgres: its lookup'],
      ['bare-postgres', { contents: BARE }],
      ['bare-postgres: its statement', { contents: bareSending(page) }],
      ['bare-postgres: its lookup', { contents: bareSending(lookup) }],
      ['bare-postgres-sdk-secret', { contents: SDK }],
    ];
    const files = await Promise.all(
      entries.map(([name, entry]) => bundle(`first-${name.replace(/\W+/g, '-')}`, entry, outDir)),
    );
    const event = apiEvent({ path: '/sessions', query: 'limit=25', caller: { ...caller, themeId: '' } });
    const authorizerEvent = {
      ...event,
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:eu-west-1:000000000000:bench/v1/GET/sessions',
    };
    const env = {
      PATH: process.env.PATH ?? '',
      ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
      NODE_EXTRA_CA_CERTS: certFile,
      // The functions sign an IAM token (the trust-auth bench server ignores it); the SDK twin reads the secret.
      DATABASE_IAM_USER: decodeURIComponent(target.username) || 'postgres',
      DATABASE_HOST: 'localhost',
      DATABASE_PORT: String(front.port),
      DATABASE_NAME: target.pathname.slice(1),
      DATABASE_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:000000000000:secret:bench',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDBENCH',
      AWS_SECRET_ACCESS_KEY: 'bench',
      AWS_SESSION_TOKEN: 'bench',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsUrl,
    };
    const samples = files.map(() => [] as Array<{ importMs: number; firstCallMs: number; totalMs: number }>);
    for (let i = 0; i < runs; i++) {
      for (const [f, file] of files.entries()) {
        const e = entries[f]?.[0] === 'authorizer' ? authorizerEvent : event;
        const script = `${RUNTIME_REQUIRE}
const t0 = performance.now();
const m = ${loadBundle(file)};
const t1 = performance.now();
const r = await m.handler(${JSON.stringify(e)});
const t2 = performance.now();
if (!(r.statusCode === 200 || r.policyDocument?.Statement?.[0]?.Effect === 'Allow')) throw new Error('unexpected answer ' + JSON.stringify(r).slice(0, 300));
process.stdout.write('\\n@@' + JSON.stringify({ importMs: t1 - t0, firstCallMs: t2 - t1, totalMs: t2 }));
process.exit(0);`;
        // Asynchronously: the stand-ins answer from this process's event loop.
        const out = await run(process.execPath, ['--input-type=module', '-e', script], { env }).catch(
          (error: { stderr?: string }) => {
            throw new Error(
              `first invocation of ${entries[f]?.[0]} failed: ${error.stderr ?? String(error)}`,
            );
          },
        );
        // The handler's own log lines come first (the functions log to stdout).
        samples[f]?.push(JSON.parse(out.stdout.slice(out.stdout.lastIndexOf('@@') + 2)));
      }
    }
    return entries.map(([name, , twin], f) => {
      const s = samples[f] ?? [];
      return {
        name,
        ...(twin ? { twin } : {}),
        importMs: median(s.map((x) => x.importMs)),
        firstCallMs: median(s.map((x) => x.firstCallMs)),
        totalMs: median(s.map((x) => x.totalMs)),
      };
    });
  } finally {
    await front.close();
    secrets.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
