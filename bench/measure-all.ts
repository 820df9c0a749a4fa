import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { scopes } from '#contract/routes.ts';
import { createAgent } from '#db/queries/create-agent.ts';
import { createSession } from '#db/queries/create-session.ts';
import { parsed } from '#db/queries/json-text.ts';
import { createApiKey } from '#db/queries/manage-api-keys.ts';
import { startSession } from '#db/queries/session-writes.ts';
import type { baselineCommands } from './baseline-process.ts';
import {
  type BaselineTree,
  copyChildScripts,
  openBaselineTree,
  resolveAutoBaseline,
} from './baseline-tree.ts';
import { checkBudgets } from './budgets.ts';
import { measureBundles } from './bundles.ts';
import { GATEWAY_IMPORTS, startChild } from './child.ts';
import { newestAgentId, sessionsCursorAt } from './cursor.ts';
import { ensureBenchDatabase, removeAgentsCreatedBy, serverUrlFromEnv } from './database.ts';
import { type ExplainReport, explainEach } from './explain.ts';
import { type FirstInvocation, measureFirstInvocations } from './first-invocation.ts';
import type { gatewayCommands } from './gateway-process.ts';
import { applyLayout, coresOf, cpuSpent, isLoopback, processCpuMs, yieldToServers } from './layout.ts';
import { measureOperation, type OperationResult, roundsFor } from './measure.ts';
import { operations, optionsOrExit, selected } from './plan.ts';
import {
  formatBaselineDeltas,
  formatBundles,
  formatExplain,
  formatFirstInvocations,
  formatGatewayCost,
  formatTable,
} from './report.ts';
import { sampleWaits } from './wait-events.ts';
import { formatWebhooks, measureWebhooks, WEBHOOKS_OPERATION, type WebhookResult } from './webhooks.ts';

/**
 * `npm run bench [-- --quick]`: the API through the local gateway against the same statements
 * without it. Progress goes to stderr, the report to stdout and bench/results/<time>.json.
 * Process layout: this process only generates load (autocannon); the gateway and the baselines
 * each run in a child process, so no server shares an event loop with the load generator.
 */
const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results');
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const options = optionsOrExit(process.argv.slice(2));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const startedAt = new Date();
const loadBefore = loadavg();
const runTag = randomBytes(3).toString('hex');

// Before any connection or child process: both inherit the cores they start on.
const { layout, restore: restoreLayout } = applyLayout(options.layout, serverUrlFromEnv());
log(
  layout.kind === 'split'
    ? `layout: Postgres on cores ${layout.databaseCpus}, the bench's processes on ${layout.benchCpus}`
    : `layout: shared cores${layout.why ? ` (split not set up: ${layout.why})` : ''}`,
);
let baselineTree = openBaseline(options.baseline);
const db = await ensureBenchDatabase(serverUrlFromEnv(), options.databaseName, options.sessions, log);
const key = await createApiKey(db.handle.db, {
  workspaceId: db.measured.workspaceId,
  name: `bench ${runTag}`,
  scopes,
});
// The agent the publish operation publishes: the run's own, removed with the agents it creates.
const publishAgent = await createAgent(db.handle.sql, {
  workspaceId: db.measured.workspaceId,
  principalId: key.principalId,
  keyId: key.id,
  name: `Bench publish ${runTag}`,
  description: null,
  slug: { given: `bench-publish-${runTag}` },
  version: {
    config: null,
    systemPrompt: 'Published by npm run bench',
    knowledgeBaseId: null,
    inputMode: [],
    followUp: false,
  },
});
const published = { agentId: publishAgent.id, versionId: String(parsed(publishAgent.item).version?.id) };
// The session the heartbeat operation keeps alive: the run's own, in progress.
const caller = { workspaceId: db.measured.workspaceId, keyId: key.id };
const heartbeatSessionId = await db.handle.sql.transaction(async (tx) => {
  const { id } = await createSession(tx, {
    ...caller,
    agentId: published.agentId,
    agentVersionId: published.versionId,
    type: 'WEB_VOICE',
    name: `Bench heartbeat ${runTag}`,
    recordAudio: false,
    person: { email: `bench-${runTag}@example.com`, phone: null, properties: {} },
  });
  await startSession(tx, caller, id);
  return id;
});
const env = {
  BENCH_DATABASE_URL: db.url,
  BENCH_POOL_MAX: String(options.connections),
  BENCH_WORKSPACE_ID: db.measured.workspaceId,
  BENCH_PRINCIPAL_ID: key.principalId,
  BENCH_KEY_ID: key.id,
  // The webhooks' receiver is on this machine, as under `npm start`.
  WEBHOOK_ALLOW_LOOPBACK: 'true',
};
const gateway = await startChild<typeof gatewayCommands>('./gateway-process.ts', env, {
  imports: GATEWAY_IMPORTS,
});
const baseline = await startChild<typeof baselineCommands>('./baseline-process.ts', env);
// The baseline's gateway: this tree's gateway process, run from the baseline's tree, so its `#…`
// imports are the baseline's code (it needs only openDatabase, createLogger and startGateway).
const baselineGateway = baselineTree && (await startBaselineGateway(baselineTree, env));
// Only now, so the servers keep the default priority.
const loadNice = yieldToServers(options.loadNice);
const admin = postgres(db.url, { max: 1, prepare: false, onnotice: () => {} });
// Its own connection: a poll waits for no other reading, and none for it.
const waitsClient = postgres(db.url, { max: 1, prepare: false, onnotice: () => {} });
/**
 * The database's CPU: of the backends connected to the bench's database (the servers' pools
 * outlive the slices), not of the whole server, whose other databases may be busy with other work.
 */
const benchBackendsCpu = async () => {
  const rows = await admin`select pid from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()`;
  const pids = rows.map((row) => Number(row.pid));
  if (pids.length === 0) return undefined;
  return () => {
    const before = processCpuMs(pids);
    return () => cpuSpent(before, processCpuMs(pids));
  };
};

let failed = false;
try {
  const context = {
    gateway,
    baseline,
    gatewayUrl: (gateway.ready as { url: string }).url,
    bareUrl: (baseline.ready as { url: string }).url,
    peerUrl: (baseline.ready as { peerUrl: string }).peerUrl,
    token: key.token,
    callerIds: [db.measured.workspaceId, key.principalId, key.id],
    timing: {
      connections: options.connections,
      warmupSeconds: options.warmupSeconds,
      seconds: options.seconds,
    },
    soakSeconds: options.soakSeconds,
    databaseCpu: isLoopback(db.url) ? benchBackendsCpu : async () => undefined,
    databaseWaits: () => sampleWaits(waitsClient),
    ...(baselineGateway
      ? { baselineGateway: { child: baselineGateway, url: (baselineGateway.ready as { url: string }).url } }
      : {}),
    ...(layout.kind === 'split' && layout.databaseCpus && layout.benchCpus
      ? { coreGroups: { database: coresOf(layout.databaseCpus), bench: coresOf(layout.benchCpus) } }
      : {}),
  };
  const results: OperationResult[] = [];
  const explains: Record<string, ExplainReport> = {};
  const baselineExplains: Record<string, ExplainReport> = {};
  const deep = await sessionsCursorAt(admin, db.measured.workspaceId, options.deepOffset);
  const agentId = await newestAgentId(admin, db.measured.workspaceId);
  for (const op of operations(options, runTag, deep, { agentId }, published, heartbeatSessionId)) {
    log(`${op.name} …`);
    const result = await measureOperation(op, context);
    results.push(result);
    const baseline =
      op.listIndex && result.baseline && 'main' in result.baseline ? result.baseline.main : undefined;
    if (op.listIndex || op.explain) {
      const [main, base] = await explainEach(
        admin,
        [result.main, ...(baseline ? [baseline] : [])],
        op.listIndex ?? '',
      );
      if (main) explains[op.name] = main;
      if (base) baselineExplains[op.name] = base;
    }
  }
  let webhooks: WebhookResult | undefined;
  if (selected(options, WEBHOOKS_OPERATION)) {
    log(`${WEBHOOKS_OPERATION} …`);
    webhooks = await measureWebhooks({
      gateway,
      gatewayUrl: context.gatewayUrl,
      token: key.token,
      admin,
      workspaceId: db.measured.workspaceId,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      runTag,
      log,
    });
  }
  if (!options.skipBundles) log('bundling and timing imports …');
  // With a baseline, its own bundles too, built in its tree and timed in the same rounds.
  const { current: bundles, baseline: baselineBundles } = options.skipBundles
    ? { current: [], baseline: [] }
    : await measureBundles(join(RESULTS, 'bundles'), options.importRuns, baselineTree?.dir);
  if (!options.skipBundles) log('first invocations through the local stand-ins …');
  const firstInvocations: FirstInvocation[] = options.skipBundles
    ? []
    : await measureFirstInvocations(
        join(RESULTS, 'bundles'),
        db.url,
        {
          workspaceId: db.measured.workspaceId,
          principalId: key.principalId,
          keyId: key.id,
          token: key.token,
        },
        options.quick ? 3 : 9,
      );
  const budgets = checkBudgets(results, bundles, options.quick, explains, firstInvocations, webhooks);
  failed =
    results.some(
      // The peer's failures (timeouts at deep offsets) are a finding about it, reported, not a broken run.
      (r) =>
        r.api.errors > 0 || r.driver.errors > 0 || (r.bare?.errors ?? 0) > 0 || (r.soak?.errors ?? 0) > 0,
    ) || (webhooks?.latency.errors ?? 0) > 0;

  const version = await admin`select version()`;
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    layout,
    node: process.version,
    postgres: String(version[0]?.version).split(' on ')[0],
    loadAverageBefore: loadBefore,
    loadAverageAfter: loadavg(),
  };
  const out = [
    `voice-agent-admin-api bench (${options.quick ? 'quick' : 'full'}), ${startedAt.toISOString()}`,
    `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.postgres}; ` +
      `load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${machine.loadAverageAfter.map((l) => l.toFixed(2)).join(' ')} after`,
    layout.kind === 'split'
      ? `Layout: split, Postgres on cores ${layout.databaseCpus}, gateway, baselines and autocannon on ${layout.benchCpus}; autocannon at nice ${loadNice ?? 0}`
      : `Layout: shared cores${layout.why ? ` (split not set up: ${layout.why})` : ''}; autocannon at nice ${loadNice ?? 0}`,
    `2 workspaces × ${options.sessions} sessions; ${options.connections} connections, ` +
      `${options.warmupSeconds} s warm-up, then ${options.seconds} s per target, both taken in turns in slices of ` +
      `${(options.seconds / roundsFor(options.seconds)).toFixed(1)} s; limit 250's API soak: ${options.soakSeconds} s alone`,
    '',
    formatTable(results),
    '',
    ...(baselineTree ? [formatBaselineDeltas(results, baselineLabel(baselineTree)), ''] : []),
    formatGatewayCost(results),
    '',
    'Statements per request (authorizer answer cached):',
    ...results.flatMap((r) => [
      `  ${r.name}: ${r.statements.length}; under load ${r.statementsUnderLoad.toFixed(4)} (authorizer refreshes included)`,
      ...r.statements.map((st) => `      ${st.query.replace(/\s+/g, ' ').trim().slice(0, 90)} …`),
    ]),
    `Gateway peak RSS over the whole run: ${results.length > 0 ? Math.max(...results.map((r) => r.peakRssMb)).toFixed(0) : 'n/a'} MiB`,
    '',
    'EXPLAIN (ANALYZE, BUFFERS):',
    ...Object.entries(explains).flatMap(([name, e]) => {
      const before = baselineExplains[name];
      return [
        formatExplain(name, e),
        ...(before
          ? [
              formatExplain(
                `  baseline ${baselineTree?.ref} (run in turns with it; execution now ÷ baseline ${(e.executionMs / before.executionMs).toFixed(2)})`,
                before,
              ),
            ]
          : []),
      ];
    }),
    '',
    formatBundles(bundles, baselineBundles),
    '',
    formatFirstInvocations(firstInvocations),
    '',
    formatWebhooks(webhooks),
    '',
    'Budgets:',
    ...budgets.map(
      (b) => `  ${b.met === null ? 'n/a   ' : b.met ? 'met   ' : 'MISSED'} ${b.budget}: ${b.measured}`,
    ),
  ].join('\n');
  process.stdout.write(`${out}\n`);

  mkdirSync(RESULTS, { recursive: true });
  const file = join(
    RESULTS,
    `${startedAt.toISOString().replace(/[:.]/g, '-')}${options.quick ? '-quick' : ''}.json`,
  );
  const seed = { sessionsPerWorkspace: options.sessions, seededMs: db.seededMs, measured: db.measured.shape };
  writeFileSync(
    file,
    JSON.stringify(
      {
        startedAt,
        options,
        machine,
        seed,
        ...(baselineTree
          ? {
              baseline: {
                ref: baselineTree.ref,
                commit: baselineTree.commit,
                dependencies: baselineTree.dependencies,
              },
            }
          : {}),
        results,
        explains,
        baselineExplains,
        bundles,
        baselineBundles,
        firstInvocations,
        webhooks,
        budgets,
      },
      null,
      2,
    ),
  );
  log(`results written to ${file}`);
} catch (error) {
  failed = true;
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  // Leave the seed exactly as found, so the next run can reuse it.
  await Promise.all([
    gateway.stop(),
    baseline.stop(),
    baselineGateway?.stop(),
    admin.end(),
    waitsClient.end(),
  ]);
  baselineTree?.close();
  await removeAgentsCreatedBy(db, key.principalId);
  await db.handle.db.execute(sql`delete from api_keys where id = ${key.id}`);
  await db.handle.close();
  restoreLayout();
}
// Times are reported, never asserted; only broken answers fail the run (CI's smoke test).
// (The baseline's are its own: a request it fails is a finding about it, not a broken run.)
process.exit(failed ? 1 : 0);

/**
 * The baseline's tree, its dependencies installed (`--baseline`); none when not asked for, or when
 * `auto` finds nothing to compare with (a shallow clone): CI's bench then runs without one.
 */
function openBaseline(wanted: string | undefined): BaselineTree | undefined {
  if (!wanted) return undefined;
  if (wanted === 'auto') {
    // CI's: a baseline that cannot be set up is reported, and the run goes on without it.
    try {
      return checkOutBaseline(wanted);
    } catch (error) {
      log(`baseline: not set up (${error instanceof Error ? error.message : error}); measuring without one`);
      return undefined;
    }
  }
  return checkOutBaseline(wanted);
}

function checkOutBaseline(wanted: string): BaselineTree | undefined {
  const resolved = wanted === 'auto' ? resolveAutoBaseline(REPO) : { ref: wanted, why: 'as given' };
  if (!resolved) {
    log('baseline: no tag, merge base or parent commit here; measuring without one');
    return undefined;
  }
  // Exit handlers run on Ctrl-C only if something turns the signal into an exit.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  const started = performance.now();
  const tree = openBaselineTree(REPO, resolved.ref, {
    log,
    install: (dir) =>
      execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
        cwd: dir,
        // npm's output goes to stderr with the progress: stdout is the report.
        stdio: ['ignore', 2, 2],
      }),
  });
  log(
    `baseline ${resolved.ref} (${resolved.why}): ${tree.commit.slice(0, 10)} in ${tree.dir}, ` +
      `dependencies ${tree.dependencies}, ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return tree;
}

function baselineLabel(tree: BaselineTree) {
  const short = tree.commit.slice(0, 10);
  if (tree.commit.startsWith(tree.ref) || tree.ref === tree.commit) return short;
  return `${tree.ref} (${short})`;
}

/** The baseline's gateway process; with `--baseline auto`, none (and no tree) when it cannot start. */
async function startBaselineGateway(tree: BaselineTree, env: Record<string, string>) {
  const scripts = copyChildScripts(tree.dir, ['gateway-process.ts']);
  try {
    return await startChild<typeof gatewayCommands>('gateway-process.ts', env, {
      dir: scripts,
      imports: GATEWAY_IMPORTS,
    });
  } catch (error) {
    if (options.baseline !== 'auto') throw error;
    log(
      `baseline: its gateway did not start (${error instanceof Error ? error.message : error}); measuring without one`,
    );
    tree.close();
    baselineTree = undefined;
    return undefined;
  }
}
