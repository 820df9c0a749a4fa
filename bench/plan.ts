import { parseArgs } from 'node:util';
import { OFFSET_MAX } from '#contract/limits.ts';
import type { LayoutKind } from './layout.ts';
import type { PeerOperation } from './peer.ts';

export interface BenchOptions {
  /** `--help`: print the usage, run nothing. */
  help: boolean;
  quick: boolean;
  /** Sessions per workspace (two workspaces are seeded). */
  sessions: number;
  databaseName: string;
  /** Where the cursor operation starts: 90 % into the workspace's sessions. */
  deepOffset: number;
  /** The offset operation's: as deep, or the deepest offset the API accepts (OFFSET_MAX) if less. */
  offsetDepth: number;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** The run of `GET /sessions?limit=250` that also watches the gateway's RSS. */
  soakSeconds: number;
  importRuns: number;
  /** Measure only the operations whose name contains one of these, comma-separated (`--only "limit 25,POST"`). */
  only?: string;
  skipBundles: boolean;
  /** Where the processes run (bench/layout.ts): `split` unless `--layout shared`. */
  layout: LayoutKind;
  /** The load generator's nice value (`--load-nice`, default 0: as the servers'). */
  loadNice: number;
  /**
   * `--baseline <ref>`: that commit's gateway measured in turns with the working tree's on the same
   * data (bench/baseline-tree.ts); `auto`: the last tag, else the merge base with main, else HEAD~1.
   */
  baseline?: string;
}

/** A command line the bench does not take: the message names what is wrong, the usage follows. */
export class UsageError extends Error {}

/**
 * Every option the bench takes, parsed from here and described from here (`--help`), so the usage
 * cannot miss one. `value` names an option's argument; a boolean has none.
 */
export const BENCH_OPTIONS = {
  quick: {
    type: 'boolean',
    help: "a tenth of the data in its own database, 1 s + 2 s per measurement (CI's)",
  },
  sessions: {
    type: 'string',
    value: 'N',
    help: 'sessions per workspace (100000; quick 10000), in a database of its own',
  },
  connections: { type: 'string', value: 'N', help: "the load generator's concurrent connections (10)" },
  warmup: { type: 'string', value: 'S', help: 'warm-up seconds before each measurement (5; quick 1)' },
  seconds: { type: 'string', value: 'S', help: 'seconds per measurement (15; quick 2)' },
  soak: {
    type: 'string',
    value: 'S',
    help: "seconds of the limit-250 run that watches the gateway's memory (180; quick --seconds)",
  },
  only: {
    type: 'string',
    value: 'NAMES',
    help: 'only the operations whose name contains one of these ("limit 25,POST")',
  },
  'skip-bundles': { type: 'boolean', help: 'skip bundling, the import times and the first invocations' },
  layout: {
    type: 'string',
    value: 'split|shared',
    help: 'Postgres on cores of its own, or all on the same cores (split)',
  },
  'load-nice': { type: 'string', value: 'N', help: "the load generator's nice value (0: as the servers')" },
  baseline: {
    type: 'string',
    value: 'REF|auto',
    help: "also that commit's gateway, in turns, on the same data (auto: last tag, merge base, HEAD~1)",
  },
  help: { type: 'boolean', short: 'h', help: 'print this and exit' },
} as const;

/** What `--help` prints: each option of BENCH_OPTIONS with its argument and what it does. */
export function usage(command = 'npm run bench --'): string {
  const lines = Object.entries(BENCH_OPTIONS).map(([name, option]) => {
    const short = 'short' in option ? `-${option.short}, ` : '';
    const flag = `${short}--${name}${'value' in option ? ` ${option.value}` : ''}`;
    return `  ${flag.padEnd(26)} ${option.help}`;
  });
  return `Usage: ${command} [options]\n\nOptions (defaults in parentheses):\n${lines.join('\n')}\n`;
}

/** A number option's value; anything but a finite number is a usage error naming the option. */
function numberOf(name: keyof typeof BENCH_OPTIONS, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number)) {
    throw new UsageError(`--${name}: a number, not ${JSON.stringify(value)}`);
  }
  return number;
}

/**
 * Full: 100,000 sessions per workspace, 5 s warm-up + 15 s per measurement, one 180 s soak
 * (docs/performance.md says how long it takes). `--quick` (CI's smoke test): a tenth of the data in
 * its own database and 1 s + 2 s per measurement. A command line it does not take throws
 * `UsageError`.
 */
export function parseOptions(argv: string[]): BenchOptions {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (error) {
    // node:util's own refusals (an unknown option, a missing value) carry ERR_PARSE_ARGS_* codes.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) {
      throw new UsageError((error as Error).message);
    }
    throw error;
  }
  const quick = values.quick ?? false;
  const layout = values.layout ?? 'split';
  if (layout !== 'split' && layout !== 'shared') {
    throw new UsageError(`--layout: split or shared, not ${JSON.stringify(layout)}`);
  }
  const standard = quick ? 10_000 : 100_000;
  // `--sessions N`: another data size (e.g. the 1,000,000-row run) in a database of its own.
  const sessions = numberOf('sessions', values.sessions, standard);
  const seconds = numberOf('seconds', values.seconds, quick ? 2 : 15);
  return {
    help: values.help ?? false,
    quick,
    sessions,
    databaseName: sessions !== standard ? `vaa_bench_${sessions}` : quick ? 'vaa_bench_quick' : 'vaa_bench',
    deepOffset: Math.floor(sessions * 0.9),
    offsetDepth: Math.min(Math.floor(sessions * 0.9), OFFSET_MAX),
    connections: numberOf('connections', values.connections, 10),
    warmupSeconds: numberOf('warmup', values.warmup, quick ? 1 : 5),
    seconds,
    // Long enough to tell a leak from the answers that happen to be in flight at each collection.
    soakSeconds: numberOf('soak', values.soak, quick ? seconds : 180),
    // Imports take ~40 ms each: 11 in the quick run keep its median steady for a few seconds more.
    importRuns: quick ? 11 : 21,
    only: values.only,
    skipBundles: values['skip-bundles'] ?? false,
    layout,
    loadNice: numberOf('load-nice', values['load-nice'], 0),
    ...(values.baseline ? { baseline: values.baseline } : {}),
  };
}

const parse = (argv: string[]) => parseArgs({ args: argv, options: BENCH_OPTIONS, strict: true });

/**
 * The command line's options, or the end of the process: `--help` prints the usage and exits 0; a
 * command line the bench does not take prints what is wrong and the usage, and exits 2.
 */
export function optionsOrExit(argv: string[], command?: string): BenchOptions {
  let options: BenchOptions;
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${usage(command)}`);
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(usage(command));
    process.exit(0);
  }
  return options;
}

export interface Operation {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** Lists also get an EXPLAIN; the value is the index they page on. */
  listIndex?: string;
  /** An EXPLAIN (ANALYZE) of its statement. */
  explain?: boolean;
  /** Watch the gateway's memory over a longer run. */
  soak?: boolean;
  body?: () => string;
  /** Ids the request names (its agent, its version): the driver's replays keep them. */
  fixedIds?: readonly string[];
  /** What the idiomatic Drizzle peer (bench/peer.ts) runs for the same request. */
  peer: PeerOperation;
}

/** A create request as a dashboard sends it; a unique name per request, so its slug is free. */
export const createBody = (name: string) =>
  JSON.stringify({
    name,
    description: 'Created by npm run bench',
    version: {
      config: {
        llm: { provider: 'LLM_PROVIDER_1', temperature: 0.5 },
        tts: { provider: 'TTS_PROVIDER_1', model: 'TTS_MODEL_1A', voiceId: 'voice-1' },
        stt: { provider: 'STT_PROVIDER_1', model: 'STT_MODEL_1A' },
      },
      systemPrompt: 'You are a helpful agent.',
      inputMode: ['WEB_VOICE'],
    },
  });

export function operations(
  options: BenchOptions,
  runTag: string,
  deep: { cursor: string; position: { createdAt: string; id: string } },
  ids: { agentId: string },
  /** The run's own agent and its version, which `publish` publishes again and again. */
  published: { agentId: string; versionId: string },
  /** The run's own session in progress, which `heartbeat` keeps alive. */
  heartbeatSessionId: string,
): Operation[] {
  let created = 0;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const month = { from: day(Date.now() - 29 * 86_400_000), to: day(Date.now()) };
  const all: Operation[] = [
    {
      name: 'GET /sessions limit 25',
      method: 'GET',
      path: '/sessions?limit=25',
      listIndex: 'sessions_workspace_created',
      peer: { kind: 'sessions', limit: 25, offset: 0 },
    },
    {
      name: 'GET /sessions limit 250',
      method: 'GET',
      path: '/sessions?limit=250',
      listIndex: 'sessions_workspace_created',
      soak: true,
      peer: { kind: 'sessions', limit: 250, offset: 0 },
    },
    {
      // Deeper pages go by cursor (the next operation): the API refuses an offset past OFFSET_MAX.
      name: `GET /sessions offset ${options.offsetDepth}`,
      method: 'GET',
      path: `/sessions?limit=25&offset=${options.offsetDepth}`,
      listIndex: 'sessions_workspace_created',
      peer: { kind: 'sessions', limit: 25, offset: options.offsetDepth },
    },
    {
      // Not a budget of its own: what the deep offset costs when paged by keyset instead.
      name: `GET /sessions cursor at ${options.deepOffset}`,
      method: 'GET',
      path: `/sessions?limit=25&cursor=${encodeURIComponent(deep.cursor)}`,
      listIndex: 'sessions_workspace_created',
      peer: { kind: 'sessions', limit: 25, offset: 0, after: deep.position },
    },
    {
      name: 'GET /agents',
      method: 'GET',
      path: '/agents',
      listIndex: 'agents_workspace_created',
      peer: { kind: 'agents', limit: 25 },
    },
    {
      name: 'POST /agents',
      method: 'POST',
      path: '/agents',
      body: () => createBody(`Bench ${runTag} ${++created}`),
      peer: { kind: 'create' },
    },
    {
      name: 'GET /agents/{agentId}',
      method: 'GET',
      path: `/agents/${ids.agentId}`,
      peer: { kind: 'agent', agentId: ids.agentId },
    },
    {
      // Every request contends for the one agent's row lock, as the driver's replays do.
      name: 'POST /agents/{id}/publish',
      method: 'POST',
      path: `/agents/${published.agentId}/publish`,
      body: () => JSON.stringify({ versionId: published.versionId }),
      fixedIds: [published.agentId, published.versionId],
      peer: { kind: 'publish', ...published },
    },
    {
      // The voice runtime's hot write: one per live call every few seconds.
      name: 'POST /sessions/{id}/heartbeat',
      method: 'POST',
      path: `/sessions/${heartbeatSessionId}/heartbeat`,
      fixedIds: [heartbeatSessionId],
      peer: { kind: 'heartbeat', sessionId: heartbeatSessionId },
    },
    {
      // One primary-key read.
      name: 'GET /balance',
      method: 'GET',
      path: '/balance',
      explain: true,
      // Its statement is so cheap that HTTP on the bench's core bounds it, not the database.
      peer: { kind: 'balance' },
    },
    {
      // The last 30 days by day over the metered entries the seed adds (ten a session: 1,000,000
      // at the standard size), from the quarter-hour rollup.
      name: 'GET /usage month by day',
      method: 'GET',
      path: `/usage?from=${month.from}&to=${month.to}&groupBy=day`,
      explain: true,
      peer: { kind: 'usage', ...month, groupBy: 'day', timezone: 'UTC' },
    },
    {
      // The same in a zone offset by half an hour: its local days are whole quarter-hours too, so
      // the rollup answers it alone.
      name: 'GET /usage month by day Asia/Kolkata',
      method: 'GET',
      path: `/usage?from=${month.from}&to=${month.to}&groupBy=day&timezone=Asia/Kolkata`,
      explain: true,
      peer: { kind: 'usage', ...month, groupBy: 'day', timezone: 'Asia/Kolkata' },
    },
    {
      // By agent: the month's whole UTC days from the daily rollup by agent, a few rows a day each.
      name: 'GET /usage month by agent',
      method: 'GET',
      path: `/usage?from=${month.from}&to=${month.to}&groupBy=agent`,
      explain: true,
      peer: { kind: 'usage', ...month, groupBy: 'agent', timezone: 'UTC' },
    },
  ];
  return all.filter((op) => selected(options, op.name));
}

/** Whether `--only` (a comma-separated list of parts of names) leaves the operation `name` in. */
export const selected = (options: BenchOptions, name: string) =>
  (options.only?.split(',') ?? ['']).some((part) => name.includes(part));
