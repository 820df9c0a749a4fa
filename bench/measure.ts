import type { baselineCommands } from './baseline-process.ts';
import type { Child } from './child.ts';
import type { gatewayCommands, MemorySample, Statement } from './gateway-process.ts';
import { busyShare, coreTicks } from './layout.ts';
import { type HttpTarget, loadHttp, type Timing, type Window } from './load.ts';
import type { Operation } from './plan.ts';
import { pool, readAt, type Sample, type Stats, summarize } from './stats.ts';
import type { WaitSamples } from './wait-events.ts';

export interface Context {
  gateway: Child<typeof gatewayCommands>;
  baseline: Child<typeof baselineCommands>;
  gatewayUrl: string;
  bareUrl: string;
  peerUrl: string;
  token: string;
  /** The caller's ids (workspace, principal, key): parameters the driver's replays keep. */
  callerIds: readonly string[];
  timing: Timing;
  soakSeconds: number;
  /**
   * Finds the database's backends before a slice (bench/layout.ts); what it returns starts a reading
   * of their CPU at once, and what that returns gives the ms spent since. Undefined when the server
   * is not on this machine.
   */
  databaseCpu: () => Promise<(() => () => number | undefined) | undefined>;
  /** Starts sampling what the database's active backends wait on; what it returns stops and counts. */
  databaseWaits?: () => () => Promise<WaitSamples>;
  /** The split layout's two groups of cores, whose busy share each slice reports; none when shared. */
  coreGroups?: { database: number[]; bench: number[] };
  /** `--baseline`: the same gateway process run from another commit's tree (bench/baseline-tree.ts). */
  baselineGateway?: { child: Child<typeof gatewayCommands>; url: string };
}

/** One target of the comparison: load not measured (its warm-up), and one measured slice of load. */
interface Target {
  name: string;
  warm: (seconds: number) => Promise<unknown>;
  slice: (seconds: number) => Promise<Sample>;
}

/** Load before and after each measured slice, not counted: the slice then sees only steady load. */
const LEAD_SECONDS = 0.25;
const TAIL_SECONDS = 0.25;

/** A server's counters (bench/server-meter.ts), reset when a slice starts and read when it ends. */
interface ServerCounters<C extends { cpuMs: number; requests: number }> {
  reset: () => Promise<unknown>;
  read: () => Promise<C>;
}

/**
 * One measured slice of `seconds`: `load` runs from LEAD_SECONDS before it to TAIL_SECONDS after
 * it and counts the answers within it; the database's CPU and the server's counters are read at its
 * start and end.
 */
async function windowed<C extends { cpuMs: number; requests: number }>(
  ctx: Context,
  seconds: number,
  load: (window: Window, runSeconds: number) => Promise<Sample>,
  counters?: ServerCounters<C>,
): Promise<{ sample: Sample; read?: C }> {
  // Looked up before the lead: a query at the window's start would wait on the loaded server and
  // start the reading late.
  const startDbReading = await ctx.databaseCpu();
  const start = performance.now() + LEAD_SECONDS * 1000;
  const window = { start, end: start + seconds * 1000 };
  let dbReading: (() => number | undefined) | undefined;
  let dbCpuMs: number | undefined;
  let stopWaits: (() => Promise<WaitSamples>) | undefined;
  let waits: WaitSamples | undefined;
  let coresStart: ReturnType<typeof coreTicks>;
  let busy: Sample['busy'];
  let read: C | undefined;
  const meters = Promise.all([
    readAt(window.start, async () => {
      dbReading = startDbReading?.();
      coresStart = ctx.coreGroups && coreTicks();
      stopWaits = ctx.databaseWaits?.();
      await counters?.reset();
    }),
    readAt(window.end, async () => {
      dbCpuMs = dbReading?.();
      busy = coresBusy(ctx, coresStart);
      [read, waits] = await Promise.all([counters?.read(), stopWaits?.()]);
    }),
  ]);
  const sample = await load(window, LEAD_SECONDS + seconds + TAIL_SECONDS);
  await meters;
  return { sample: { ...sample, dbCpuMs, busy, waits, cpuMs: read?.cpuMs ?? sample.cpuMs }, read };
}

/** How busy each group of cores was since `start` (a `coreTicks()` reading). */
function coresBusy(ctx: Context, start: ReturnType<typeof coreTicks>): Sample['busy'] {
  if (!ctx.coreGroups || !start) return undefined;
  const end = coreTicks();
  const database = busyShare(start, end, ctx.coreGroups.database);
  const bench = busyShare(start, end, ctx.coreGroups.bench);
  return database === undefined || bench === undefined ? undefined : { database, bench };
}

/** An HTTP server under autocannon; `onRead` sees the server's counters after each slice. */
function httpTarget<C extends { cpuMs: number; requests: number }>(
  ctx: Context,
  name: string,
  target: HttpTarget,
  counters: ServerCounters<C>,
  onRead?: (read: C) => void,
): Target {
  const { connections } = ctx.timing;
  return {
    name,
    warm: (seconds) => loadHttp(target, connections, seconds),
    slice: async (seconds) => {
      const { sample, read } = await windowed(
        ctx,
        seconds,
        (window, runSeconds) => loadHttp(target, connections, runSeconds, window),
        counters,
      );
      if (read) onRead?.(read);
      return sample;
    },
  };
}

/**
 * `target`, each of whose runs ends only when the baseline process's statements have: the peer's
 * slowest statements (a deep offset under load) outlive the requests autocannon gave up on, up to
 * the server's 10 s statement timeout, and would otherwise run through the next target's slice.
 */
function settling(ctx: Context, target: Target): Target {
  const settle = () => ctx.baseline.call('settle');
  return {
    name: target.name,
    warm: async (seconds) => {
      await target.warm(seconds);
      await settle();
    },
    slice: async (seconds) => {
      const sample = await target.slice(seconds);
      await settle();
      return sample;
    },
  };
}

/**
 * The targets measured in turns, `seconds` each in all, split into `rounds` slices, the order
 * reversed every other round (A B C, C B A, A B C …), and each target's slices pooled. This
 * machine's speed drifts 10–40 % within minutes (docs/performance.md, "The machine"): measured one
 * after the other, the targets' ratios measured the drift as much as the API; taken in turns,
 * the drift falls on every target alike. They warm up in turns too, in slices as long, so none
 * comes to its measured slices after idling through the others' warm-ups, which makes a gateway's
 * first slices cost more per answer (docs/performance.md, "How it measures").
 */
async function inTurns(
  targets: Target[],
  { seconds, warmupSeconds }: { seconds: number; warmupSeconds: number },
  rounds: number,
): Promise<{ pooled: Map<string, Stats>; slices: Slice[] }> {
  const warmRounds = Math.max(1, Math.round((warmupSeconds * rounds) / seconds));
  for (const target of turns(targets, warmRounds)) await target.warm(warmupSeconds / warmRounds);
  const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]));
  const slices: Slice[] = [];
  for (const target of turns(targets, rounds)) {
    const sample = await target.slice(seconds / rounds);
    samples.get(target.name)?.push(sample);
    slices.push(sliceOf(target.name, sample));
  }
  return { pooled: new Map([...samples].map(([name, taken]) => [name, pool(taken)])), slices };
}

/**
 * One slice as the results file keeps it, in the order taken: what a pooled figure hides (a
 * target that moves with its neighbour, a slow start) shows here.
 */
export interface Slice {
  target: string;
  rps: number;
  p50: number;
  dbCpuMsPerAnswer?: number;
  cpuMsPerAnswer?: number;
  busy?: Sample['busy'];
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

function sliceOf(target: string, sample: Sample): Slice {
  const answers = Math.max(1, sample.latencies.length);
  const perAnswer = (ms: number | undefined) => (ms === undefined ? undefined : round(ms / answers, 3));
  const { p50 } = summarize(sample.latencies, sample.seconds, sample.errors);
  return {
    target,
    rps: Math.round(sample.latencies.length / sample.seconds),
    p50: round(p50, 2),
    dbCpuMsPerAnswer: perAnswer(sample.dbCpuMs),
    cpuMsPerAnswer: perAnswer(sample.cpuMs),
    busy: sample.busy && { database: round(sample.busy.database, 2), bench: round(sample.busy.bench, 2) },
  };
}

/**
 * The order of the slices: every target once per round, every other round reversed. Two targets
 * next to each other in `targets` (the API and its baseline) are then taken A B, B A, A B …: each
 * is as often first as second, and never more than one other slice apart.
 */
export const turns = <T>(targets: readonly T[], rounds: number): T[] =>
  Array.from({ length: rounds }, (_, round) => (round % 2 === 0 ? targets : [...targets].reverse())).flat();

/** Slices of about 1.5 s, four at least (a quick run's 2 s become four of 0.5 s). */
export const roundsFor = (seconds: number) => Math.max(4, Math.round(seconds / 1.5));

export interface OperationResult {
  name: string;
  api: Stats;
  /** The bare node:http server sending the same statement (absent from runs before every operation had it). */
  bare?: Stats;
  /** The same statement through postgres.js at the same concurrency. */
  driver: Stats;
  /** The idiomatic Drizzle version (bench/peer.ts) on the bare server. */
  peer?: Stats;
  /** The peer answered the same document as the API (lists: parsed, compared; create: same keys). */
  peerSameAnswer?: boolean;
  /** The soak operation's API run alone, after the others (its memory is `memory`). */
  soak?: Stats;
  /** Every measured slice of every target, in the order taken (the soak's aside). */
  slices: Slice[];
  /** Statements one request sent once the authorizer's answer was cached, in order. */
  statements: Statement[];
  /** The one the baselines replay (the longest, should a request send more than one). */
  main: Statement;
  /** Statements over requests during the measured API slices (authorizer refreshes included). */
  statementsUnderLoad: number;
  /** The gateway's memory during the last API run (the soak, for the soak operation). */
  memory: MemorySample[];
  /** Its memory just after each full collection in that run (gateway-process.ts `afterFullGc`). */
  memoryAfterFullGc: MemorySample[];
  peakRssMb: number;
  /**
   * `--baseline`: the baseline's gateway under the same load, its slices in turns with the API's;
   * or why it was not measured (it could not answer the request: a route it does not have).
   */
  baseline?: BaselineResult | { skipped: string };
}

export interface BaselineResult {
  api: Stats;
  statements: Statement[];
  main: Statement;
  statementsUnderLoad: number;
}

const longest = (statements: Statement[]) =>
  statements.reduce<Statement | undefined>(
    (a, b) => (a && a.query.length >= b.query.length ? a : b),
    undefined,
  );

/** The statement(s) one request sends: the first request refreshes the authorizer cache if needed. */
async function probe(op: Operation, gateway: Child<typeof gatewayCommands>, url: string, target: HttpTarget) {
  const send = () =>
    fetch(`${url}${op.path}`, {
      method: op.method,
      headers: target.headers,
      body: target.body?.(),
    });
  await (await send()).arrayBuffer();
  await gateway.call('capture');
  const response = await send();
  const body = await jsonOrNothing(response);
  const statements = await gateway.call('captured');
  if (!response.ok) throw new Error(`${op.name}: ${response.status} ${JSON.stringify(body)}`);
  return { statements, body };
}

/** A 204 (the heartbeat's) has no body to parse. */
const jsonOrNothing = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
};

const CUID2 = /^[a-z][a-z0-9]{23}$/;

/**
 * Values of a change's statement that must differ on every replay: every id the request made (a
 * cuid2 parameter neither the caller's nor the operation's own: the agent, its version, the history
 * entry), and a create's name and derived slug, found by what the probe's 201 answer says they were.
 */
function createVariation(
  op: Operation,
  body: unknown,
  main: Statement,
  callerIds: readonly string[],
): Record<string, 'id' | 'suffix'> | undefined {
  if (op.method !== 'POST') return undefined;
  const kept = new Set([...callerIds, ...(op.fixedIds ?? [])]);
  const vary: Record<string, 'id' | 'suffix'> = {};
  for (const value of main.parameters)
    if (typeof value === 'string' && CUID2.test(value) && !kept.has(value)) vary[value] = 'id';
  if (op.peer.kind === 'create') {
    const agent = body as { name: string; slug: string };
    vary[agent.name] = 'suffix';
    vary[agent.slug] = 'suffix';
  }
  return vary;
}

/** The field names of a created agent and of its version: the shape of the document (none: a 204). */
const shape = (value: unknown) => {
  if (value === undefined) return [];
  const agent = value as Record<string, unknown> & { version?: Record<string, unknown> };
  return [Object.keys(agent).sort(), Object.keys(agent.version ?? {}).sort()];
};

/**
 * Whether the peer answers what the API answered: the same list, or a created agent of the same
 * shape; undefined when it could not answer at all (its statement timed out at a deep offset), a
 * finding its error count reports.
 */
async function samePeerAnswer(op: Operation, ctx: Context, apiBody: unknown): Promise<boolean | undefined> {
  const response = await fetch(ctx.peerUrl, { method: op.method, body: op.body?.() });
  if (!response.ok) return undefined;
  const body = await jsonOrNothing(response);
  if (op.method === 'POST') return JSON.stringify(shape(body)) === JSON.stringify(shape(apiBody));
  return JSON.stringify(body) === JSON.stringify(apiBody);
}

export async function measureOperation(op: Operation, ctx: Context): Promise<OperationResult> {
  const apiTarget: HttpTarget = {
    url: ctx.gatewayUrl,
    method: op.method,
    path: op.path,
    headers: {
      authorization: `Bearer ${ctx.token}`,
      ...(op.body ? { 'content-type': 'application/json' } : {}),
    },
    body: op.body,
  };
  const { statements, body } = await probe(op, ctx.gateway, ctx.gatewayUrl, apiTarget);
  const main = longest(statements);
  if (!main) throw new Error(`${op.name}: the request sent no statement`);

  // The gateway's counters, summed over the API's slices.
  const gatewayCounters = {
    reset: () => ctx.gateway.call('resetCounters'),
    read: () => ctx.gateway.call('counters'),
  };
  const underLoad = { requests: 0, statements: 0 };
  let lastRead: Awaited<ReturnType<typeof gatewayCounters.read>> | undefined;
  const apiTurns = httpTarget(ctx, 'api', apiTarget, gatewayCounters, (read) => {
    underLoad.requests += read.requests;
    underLoad.statements += read.statements;
    lastRead = read;
  });
  const targets = [apiTurns];
  // Right after the API's, so the two are taken next to each other (see `turns`).
  const baseline = ctx.baselineGateway && (await baselineTarget(op, ctx.baselineGateway, apiTarget, ctx));
  if (baseline && 'target' in baseline) targets.push(baseline.target);
  // The bare server: what HTTP alone costs beside the driver. A write's ids and names vary on
  // every call, as the driver's replays do.
  const vary = createVariation(op, body, main, ctx.callerIds);
  await ctx.baseline.call('serve', { statement: main, vary });
  targets.push(
    httpTarget(
      ctx,
      'bare',
      { url: ctx.bareUrl, method: 'GET', path: '/' },
      {
        reset: () => ctx.baseline.call('resetCounters'),
        read: () => ctx.baseline.call('counters'),
      },
    ),
  );
  await ctx.baseline.call('servePeer', op.peer);
  const peerSameAnswer = await samePeerAnswer(op, ctx, body);
  targets.push(
    settling(
      ctx,
      httpTarget(
        ctx,
        'peer',
        {
          url: ctx.peerUrl,
          method: op.method,
          path: '/',
          headers: op.body ? { 'content-type': 'application/json' } : {},
          body: op.body,
        },
        {
          reset: () => ctx.baseline.call('resetPeerCounters'),
          read: () => ctx.baseline.call('peerCounters'),
        },
      ),
    ),
  );
  const drive = {
    statement: main,
    vary,
    connections: ctx.timing.connections,
  };
  targets.push({
    name: 'driver',
    warm: (seconds) => ctx.baseline.call('drive', { ...drive, seconds }),
    slice: async (seconds) =>
      (
        await windowed(ctx, seconds, () =>
          ctx.baseline.call('drive', {
            ...drive,
            seconds,
            leadSeconds: LEAD_SECONDS,
            tailSeconds: TAIL_SECONDS,
          }),
        )
      ).sample,
  });

  const { seconds } = ctx.timing;
  const { pooled: measured, slices } = await inTurns(targets, ctx.timing, roundsFor(seconds));
  // The soak: the API alone (warm already) for its own length, for its memory over time and its errors.
  const soak = op.soak ? pool([await apiTurns.slice(ctx.soakSeconds)]) : undefined;
  const api = measured.get('api');
  const driver = measured.get('driver');
  if (!api || !driver || !lastRead) throw new Error(`${op.name}: a target was not measured`);
  const baselineApi = measured.get('baseline');
  return {
    name: op.name,
    api,
    bare: measured.get('bare'),
    driver,
    peer: measured.get('peer'),
    peerSameAnswer,
    soak,
    slices,
    statements,
    main,
    statementsUnderLoad: underLoad.statements / Math.max(1, underLoad.requests),
    memory: lastRead.memory,
    memoryAfterFullGc: lastRead.afterFullGc,
    peakRssMb: lastRead.peakRssMb,
    ...(baseline === undefined
      ? {}
      : {
          baseline:
            'skipped' in baseline
              ? baseline
              : baselineApi
                ? { ...baseline.found, api: baselineApi, statementsUnderLoad: baseline.statementsUnderLoad() }
                : { skipped: 'not measured' },
        }),
  };
}

/**
 * The baseline's gateway as a target: probed first (its statements, and whether it answers this
 * request at all), then measured as the API is. A change's replays differ from the API's only by
 * their names and ids, which the request body makes fresh each time.
 */
async function baselineTarget(
  op: Operation,
  gateway: NonNullable<Context['baselineGateway']>,
  apiTarget: HttpTarget,
  ctx: Context,
): Promise<
  | { skipped: string }
  | { target: Target; found: Pick<BaselineResult, 'statements' | 'main'>; statementsUnderLoad: () => number }
> {
  let probed: Awaited<ReturnType<typeof probe>>;
  try {
    probed = await probe(op, gateway.child, gateway.url, apiTarget);
  } catch (error) {
    return { skipped: `the baseline did not answer: ${error instanceof Error ? error.message : error}` };
  }
  const main = longest(probed.statements);
  if (!main) return { skipped: 'the baseline sent no statement' };
  const underLoad = { requests: 0, statements: 0 };
  const target = httpTarget(
    ctx,
    'baseline',
    { ...apiTarget, url: gateway.url },
    { reset: () => gateway.child.call('resetCounters'), read: () => gateway.child.call('counters') },
    (read) => {
      underLoad.requests += read.requests;
      underLoad.statements += read.statements;
    },
  );
  return {
    target,
    found: { statements: probed.statements, main },
    statementsUnderLoad: () => underLoad.statements / Math.max(1, underLoad.requests),
  };
}
