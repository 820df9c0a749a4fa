/**
 * `npm start`: the API on http://127.0.0.1:3000 over the database named by the environment.
 * Migrates on every start; on the embedded database it also makes sure there is a demo workspace
 * and prints a token for it, so a fresh clone answers a curl line straight away.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scopes } from '#contract/routes.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { describeDatabase } from '#db/config.ts';
import { announceServer } from '#db/embedded-lock.ts';
import { migrate } from '#db/migrate.ts';
import { explainDatabaseError, openDatabaseFromEnv } from '#db/open.ts';
import { authenticate } from '#db/queries/api-keys.ts';
import { createApiKey } from '#db/queries/manage-api-keys.ts';
import { oldestWorkspaceId } from '#db/queries/workspaces.ts';
import { seedDemoWorkspace } from '#db/seed/demo-workspace.ts';
import type { Deps } from '#functions/deps.ts';
import { createLogger } from '#functions/http/log.ts';
import { startAdminChannel } from './admin-channel.ts';
import { startRelayLoop, startWebhooks } from './background.ts';
import { type Gateway, startGateway } from './gateway.ts';
import { createRateLimiter } from './rate-limit.ts';
import { referencePageFiles } from './reference-page.ts';

interface Demo {
  workspaceId: string;
  token: string;
  origin: 'seeded now' | 'kept from an earlier start' | 'new key for the existing workspace';
}

/**
 * Only a token's hash is stored, so a token cannot be shown again from the database. The demo
 * token is therefore kept beside the data (`.data/demo-token`, git-ignored with `.data/`, mode
 * 0600) and printed again on later starts: one stable token across restarts instead of a new
 * key piling up on each start. If the file is gone or its key no longer works (revoked,
 * expired), a new demo key is minted for the oldest workspace and saved in its place.
 */
async function ensureDemo(handle: DatabaseHandle, tokenFile: string | undefined): Promise<Demo> {
  const { db } = handle;
  const oldestId = await oldestWorkspaceId(db);
  let demo: Demo;
  if (!oldestId) {
    const seeded = await seedDemoWorkspace(db, { name: 'Demo workspace' });
    demo = { workspaceId: seeded.workspaceId, token: seeded.token, origin: 'seeded now' };
  } else {
    const saved = tokenFile && existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '';
    const principal = saved ? await authenticate(handle.sql, saved) : undefined;
    if (principal)
      return { workspaceId: principal.workspaceId, token: saved, origin: 'kept from an earlier start' };
    const key = await createApiKey(db, { workspaceId: oldestId, name: 'Demo key (npm start)', scopes });
    demo = { workspaceId: oldestId, token: key.token, origin: 'new key for the existing workspace' };
  }
  if (tokenFile) {
    writeFileSync(tokenFile, `${demo.token}\n`, { mode: 0o600 });
    chmodSync(tokenFile, 0o600); // mode only applies when the file is new
  }
  return demo;
}

function banner(url: string, where: string, demo: Demo | undefined): string {
  const lines = [`Voice Agent Admin API listening on ${url} (${where})`, `API reference: ${url}/docs/`];
  if (demo) {
    lines.push(
      `Demo workspace ${demo.workspaceId}; bearer token (${demo.origin}):`,
      `  ${demo.token}`,
      'Try:',
      `  curl -H "Authorization: Bearer ${demo.token}" ${url}/sessions`,
    );
  } else {
    lines.push(
      'Nothing is seeded on a database server. For a demo workspace and its token (last line):',
      '  npm run --silent db:seed | tail -1',
      'or a key for an existing workspace:',
      '  npm run --silent token -- create --workspace <id> | tail -1',
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * With LOCAL_AWS_PORT: this server also plays the deployed stage `local` for the AWS SDK (the admin
 * function and the stack's outputs), so `--stage local` runs the CLIs as CI runs them after a deploy.
 */
async function startStage(apiUrl: string, deps: Deps) {
  // Loaded only when asked for: it brings the stage module, and with it aws-cdk-lib.
  const { startLocalStage } = await import('#local-aws/local-stage.ts');
  const stage = await startLocalStage({
    deps,
    apiUrl,
    port: Number(process.env.LOCAL_AWS_PORT),
    host: process.env.HOST,
  });
  const env = Object.entries(stage.env).map(([k, v]) => `${k}=${v}`);
  process.stdout.write(
    `Local AWS stand-ins (Lambda Invoke, CloudFormation DescribeStacks) on ${stage.url}, stack ${stage.stackName}:\n` +
      `  export ${env.join(' ')}\n` +
      '  npm run smoke -- --stage local --write\n',
  );
  return stage;
}

/**
 * On the embedded database, which this process now holds: the local admin channel, announced beside
 * the lock, so that `workspace`, `token`, `db:seed` and `sessions:sweep` work through this process
 * while it runs, with nothing to set (cli/local-server.ts).
 */
async function startChannel(dataDir: string, apiUrl: string, deps: Deps) {
  const channel = await startAdminChannel(deps);
  const withdraw = announceServer(dataDir, { apiUrl, adminUrl: channel.url, secret: channel.secret });
  return {
    async close() {
      withdraw();
      await channel.close();
    },
  };
}

/**
 * The outbox relay every few seconds, onto an in-process EventBridge stand-in that logs each event
 * it is given: the deployed path (the real SDK, PutEvents) without an AWS account.
 */
async function startRelay(deps: Deps, wake?: () => Promise<void>) {
  const { startEventBridgeEndpoint } = await import('#local-aws/eventbridge-endpoint.ts');
  const { eventBridgePublisher } = await import('#functions/events/relay.ts');
  const bridge = await startEventBridgeEndpoint({
    onEvent: (entry) =>
      deps.logger('info', 'event published (local EventBridge stand-in)', {
        detailType: entry.DetailType,
        detail: JSON.parse(entry.Detail ?? '{}'),
      }),
  });
  const publish = eventBridgePublisher(
    { EVENT_BUS_NAME: 'voice-agent-admin-local' },
    {
      endpoint: bridge.url,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    },
  );
  const loop = await startRelayLoop({ ...deps, publish, wake });
  return {
    async close() {
      await loop.close();
      await bridge.close();
    },
  };
}

async function main() {
  let handle: DatabaseHandle | undefined;
  let gateway: Gateway | undefined;
  let stage: { close(): Promise<void> } | undefined;
  let relay: { close(): Promise<void> } | undefined;
  let webhooks: Awaited<ReturnType<typeof startWebhooks>> | undefined;
  let channel: { close(): Promise<void> } | undefined;
  // Receivers on this machine over http: the local server's webhooks (never a deployed stage's).
  process.env.WEBHOOK_ALLOW_LOOPBACK ??= 'true';
  try {
    handle = await openDatabaseFromEnv();
    const { config } = handle;
    await migrate(handle);
    // An in-memory embedded database (empty PGLITE_DATA_DIR) still gets a demo, just no token file.
    const demo =
      config.kind === 'pglite'
        ? await ensureDemo(handle, config.dataDir ? join(dirname(config.dataDir), 'demo-token') : undefined)
        : undefined;
    const logger = createLogger();
    gateway = await startGateway({
      deps: { database: handle, logger },
      port: Number(process.env.PORT ?? 3000),
      host: process.env.HOST,
      docs: referencePageFiles(),
      // Opt-in: a conformance run or a benchmark against `npm start` would otherwise meet 429s.
      limits: process.env.LOCAL_LIMITS === 'on' ? createRateLimiter() : undefined,
      // The web ACL's Authorization rules, as prod has them (LOCAL_WAF=off: as a preview without one).
      waf: process.env.LOCAL_WAF !== 'off',
      // Behind a proxy or on a public name: the URL clients use, for the links the API answers.
      ...(process.env.PUBLIC_BASE_URL ? { baseUrl: process.env.PUBLIC_BASE_URL } : {}),
    });
    process.stdout.write(banner(gateway.url, describeDatabase(config), demo));
    if (process.env.LOCAL_AWS_PORT) stage = await startStage(gateway.url, { database: handle, logger });
    webhooks = await startWebhooks({ database: handle, logger });
    relay = await startRelay({ database: handle, logger }, webhooks.wake);
    if (config.kind === 'pglite' && config.dataDir) {
      channel = await startChannel(config.dataDir, gateway.url, { database: handle, logger });
    }
  } catch (error) {
    await channel?.close();
    await relay?.close();
    await webhooks?.close();
    await stage?.close();
    await gateway?.close();
    await handle?.close();
    throw handle ? explainDatabaseError(error, handle.config) : error;
  }

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    // A second Ctrl-C means "now": skip the grace period for in-flight requests.
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`${signal}: closing the gateway, then the database\n`);
    // Backstop beyond the gateway's own grace period, should anything hang.
    setTimeout(() => process.exit(1), 15_000).unref();
    await channel?.close();
    await relay?.close();
    await webhooks?.close();
    await stage?.close();
    await gateway?.close();
    await handle?.close();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

try {
  await main();
} catch (error) {
  const { code, message } = error as { code?: string; message?: string };
  const hint =
    code === 'EADDRINUSE'
      ? `port ${process.env.PORT ?? 3000} is in use: stop the other server or set PORT`
      : message?.split('\n')[0];
  process.stderr.write(`npm start: ${hint}\n`);
  process.exitCode = 1;
}
