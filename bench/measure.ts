import type { baselineCommands } from './baseline-process.ts';
import type { Child } from './child.ts';
import type { gatewayCommands, Statement } from './gateway-process.ts';
import { type HttpTarget, loadHttp, type Timing } from './load.ts';
import type { Operation } from './plan.ts';
import type { Stats } from './stats.ts';

export interface Context {
  gateway: Child<typeof gatewayCommands>;
  baseline: Child<typeof baselineCommands>;
  gatewayUrl: string;
  bareUrl: string;
  peerUrl: string;
  token: string;
  timing: Timing;
  soakSeconds: number;
  /** The database server's CPU so far, ms (bench/layout.ts), or undefined when it is not on this machine. */
  databaseCpu: () => number | undefined;
}

/** The database CPU a measured run cost per answer: started after its warm-up, read at its end. */
function databaseMeter(ctx: Context) {
  let start: number | undefined;
  return {
    start: () => {
      start = ctx.databaseCpu();
    },
    per: (stats: Stats): Stats => {
      const end = ctx.databaseCpu();
      if (start === undefined || end === undefined) return stats;
      return { ...stats, dbCpuMsPerRequest: (end - start) / Math.max(1, stats.requests) };
    },
  };
}

/** A server's counters (bench/server-meter.ts), reset after the warm-up and read after the run. */
interface ServerCounters<C extends { cpuMs: number; requests: number }> {
  reset: () => Promise<unknown>;
  read: () => Promise<C>;
}

/**
 * One HTTP target under load: autocannon's figures with the server's CPU and the database's per
 * answer, and the server's counters as read at the end.
 */
async function loadServer<C extends { cpuMs: number; requests: number }>(
  ctx: Context,
  target: HttpTarget,
  timing: Timing,
  counters: ServerCounters<C>,
): Promise<{ stats: Stats; counters: C }> {
  const db = databaseMeter(ctx);
  const load = await loadHttp(target, timing, async () => {
    await counters.reset();
    db.start();
  });
  const read = await counters.read();
  return {
    stats: db.per({ ...load, cpuMsPerRequest: read.cpuMs / Math.max(1, read.requests) }),
    counters: read,
  };
}

export interface OperationResult {
  name: string;
  api: Stats;
  /** The bare node:http server running the same statement (lists only). */
  bare?: Stats;
  /** The same statement through postgres.js at the same concurrency. */
  driver: Stats;
  /** The idiomatic Drizzle version (bench/peer.ts) on the bare server. */
  peer?: Stats;
  /** The peer answered the same document as the API (lists: parsed, compared; create: same keys). */
  peerSameAnswer?: boolean;
  /** Statements one request sent once the authorizer's answer was cached, in order. */
  statements: Statement[];
  /** The one the baselines replay (the longest, should a request send more than one). */
  main: Statement;
  /** Statements over requests during the measured API run (authorizer refreshes included). */
  statementsUnderLoad: number;
  /** The gateway's RSS during the measured API run: [seconds, MiB]. */
  rss: Array<[number, number]>;
  peakRssMb: number;
}

const longest = (statements: Statement[]) =>
  statements.reduce<Statement | undefined>(
    (a, b) => (a && a.query.length >= b.query.length ? a : b),
    undefined,
  );

/** The statement(s) one request sends: the first request refreshes the authorizer cache if needed. */
async function probe(op: Operation, ctx: Context, target: HttpTarget) {
  const send = () =>
    fetch(`${ctx.gatewayUrl}${op.path}`, {
      method: op.method,
      headers: target.headers,
      body: target.body?.(),
    });
  await (await send()).arrayBuffer();
  await ctx.gateway.call('capture');
  const response = await send();
  const body = await response.json();
  const statements = await ctx.gateway.call('captured');
  if (!response.ok) throw new Error(`${op.name}: ${response.status} ${JSON.stringify(body)}`);
  return { statements, body };
}

/**
 * Values of the create statement that must differ on every replay (ids, name, derived slug),
 * found by what the probe's 201 answer says they were.
 */
function createVariation(op: Operation, body: unknown): Record<string, 'id' | 'suffix'> | undefined {
  if (op.method !== 'POST') return undefined;
  const agent = body as { id: string; name: string; slug: string; version: { id: string } };
  return { [agent.id]: 'id', [agent.version.id]: 'id', [agent.name]: 'suffix', [agent.slug]: 'suffix' };
}

/** The field names of a created agent and of its version: the shape of the document. */
const shape = (value: unknown) => {
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
  const body = await response.json();
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
  const { statements, body } = await probe(op, ctx, apiTarget);
  const main = longest(statements);
  if (!main) throw new Error(`${op.name}: the request sent no statement`);

  const apiTiming = op.soak ? { ...ctx.timing, seconds: ctx.soakSeconds } : ctx.timing;
  const gatewayCounters = {
    reset: () => ctx.gateway.call('resetCounters'),
    read: () => ctx.gateway.call('counters'),
  };
  const { stats: api, counters } = await loadServer(ctx, apiTarget, apiTiming, gatewayCounters);

  let bare: Stats | undefined;
  if (op.listIndex) {
    await ctx.baseline.call('serve', main);
    ({ stats: bare } = await loadServer(ctx, { url: ctx.bareUrl, method: 'GET', path: '/' }, ctx.timing, {
      reset: () => ctx.baseline.call('resetCounters'),
      read: () => ctx.baseline.call('counters'),
    }));
  }
  await ctx.baseline.call('servePeer', op.peer);
  const peerSameAnswer = await samePeerAnswer(op, ctx, body);
  const peerTarget: HttpTarget = {
    url: ctx.peerUrl,
    method: op.method,
    path: '/',
    headers: op.body ? { 'content-type': 'application/json' } : {},
    body: op.body,
  };
  const { stats: peer } = await loadServer(ctx, peerTarget, ctx.timing, {
    reset: () => ctx.baseline.call('resetPeerCounters'),
    read: () => ctx.baseline.call('peerCounters'),
  });

  const drive = { statement: main, vary: createVariation(op, body), connections: ctx.timing.connections };
  await ctx.baseline.call('drive', { ...drive, seconds: ctx.timing.warmupSeconds });
  const driverDb = databaseMeter(ctx);
  driverDb.start();
  const driver = driverDb.per(await ctx.baseline.call('drive', { ...drive, seconds: ctx.timing.seconds }));
  return {
    name: op.name,
    api,
    bare,
    driver,
    peer,
    peerSameAnswer,
    statements,
    main,
    statementsUnderLoad: counters.statements / Math.max(1, counters.requests),
    rss: counters.rss,
    peakRssMb: counters.peakRssMb,
  };
}
