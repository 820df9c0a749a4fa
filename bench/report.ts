import { type BundleReport, floorsOf } from './bundles.ts';
import type { ExplainReport } from './explain.ts';
import type { FirstInvocation } from './first-invocation.ts';
import type { MemorySample } from './gateway-process.ts';
import type { OperationResult } from './measure.ts';
import { quantile, type Stats } from './stats.ts';
import { formatWaits } from './wait-events.ts';

/** API ÷ baseline: latency (p50) and CPU per answer, lower is better; throughput, higher is better. */
export const ratios = (api: Stats, baseline: Stats | undefined) =>
  baseline
    ? {
        p50: api.p50 / baseline.p50,
        rps: api.rps / baseline.rps,
        cpu: (api.cpuMsPerRequest ?? Number.NaN) / (baseline.cpuMsPerRequest ?? Number.NaN),
      }
    : undefined;

const num = (n: number | null | undefined, digits = 1) =>
  n === undefined || n === null || Number.isNaN(n) ? '–' : n.toFixed(digits);
const pad = (cells: string[], widths: number[]) =>
  cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');

const HEADER = [
  'operation / target',
  'req/s',
  'p50 ms',
  'p99 ms',
  'errors',
  'CPU ms',
  'DB CPU',
  'p50 API/x',
  'req/s API/x',
  'CPU API/x',
];
const WIDTHS = [30, 6, 7, 7, 6, 6, 6, 9, 11, 9];

/**
 * What the local REST API emulation adds (the request as a payload-1.0 event, the cached
 * authorizer answer, the route wrapper, the result back to HTTP): the API's row over the bare
 * node:http server sending the same statement under the same load. API Gateway's own latency in
 * AWS is not on this machine and is not measured.
 */
export function formatGatewayCost(results: OperationResult[]): string {
  const rows = results.flatMap((r) =>
    r.bare
      ? [
          `  ${r.name}: p50 ${signed(r.api.p50 - r.bare.p50, 2)} ms, CPU per answer ${signed(
            (r.api.cpuMsPerRequest ?? Number.NaN) - (r.bare.cpuMsPerRequest ?? Number.NaN),
            2,
          )} ms`,
        ]
      : [],
  );
  return [
    'The local REST path (gateway emulation + route wrapper) over a bare node:http server, same statement and load:',
    ...(rows.length > 0 ? rows : ['  (none measured in this run)']),
    "  (API Gateway's own latency in AWS, and the authorizer Lambda's on a cache miss, are not measured here.)",
  ].join('\n');
}

export const signed = (n: number, digits: number) =>
  Number.isNaN(n) ? '–' : `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`;

/**
 * One line per (operation, target); the ratio columns on a baseline's line are API ÷ that baseline.
 * CPU ms: per answer, of the serving process (on the driver's line: of the client process). DB CPU:
 * per answer, of the database server's processes (a server on this machine only).
 */
export function formatTable(results: OperationResult[]): string {
  const lines = [pad(HEADER, WIDTHS)];
  for (const r of results) {
    const row = (label: string, s: Stats | undefined, ratio?: ReturnType<typeof ratios>) => {
      if (!s) return;
      const cells = [
        label,
        num(s.rps, 0),
        num(s.p50, 2),
        num(s.p99, 2),
        String(s.errors),
        num(s.cpuMsPerRequest, 2),
        num(s.dbCpuMsPerRequest, 2),
      ];
      lines.push(pad([...cells, num(ratio?.p50, 2), num(ratio?.rps, 2), num(ratio?.cpu, 2)], WIDTHS));
    };
    lines.push(r.name);
    row('  api (local gateway)', r.api);
    if (r.baseline && 'api' in r.baseline)
      row('  baseline: api at --baseline', r.baseline.api, ratios(r.api, r.baseline.api));
    else if (r.baseline) lines.push(`  baseline: ${r.baseline.skipped}`);
    row('  bare node:http + statement', r.bare, ratios(r.api, r.bare));
    row('  postgres.js statement only', r.driver, ratios(r.api, r.driver));
    row(
      `  peer: Drizzle relational${r.peerSameAnswer === false ? ' (DIFFERS)' : ''}`,
      r.peer,
      ratios(r.api, r.peer),
    );
    row('  soak: api alone', r.soak);
    // The load generator shares the cores with Postgres and the servers; the driver row has none.
    const load = [r.api, r.bare, r.peer].map((x) => num(x?.loadCpuMsPerRequest, 2)).join(' / ');
    lines.push(`  (autocannon's own CPU ms per answer, api / bare / peer: ${load})`);
    // Which side was the limit: a target that leaves the database's cores idle while its requests
    // are in flight is waiting on the other side, or on the disk (the wait line below).
    const busy = (
      [
        ['api', r.api],
        ['baseline', r.baseline && 'api' in r.baseline ? r.baseline.api : undefined],
        ['bare', r.bare],
        ['driver', r.driver],
        ['peer', r.peer],
      ] as const
    ).flatMap(([label, s]) =>
      s?.busy ? [`${label} ${Math.round(s.busy.database * 100)} / ${Math.round(s.busy.bench * 100)}`] : [],
    );
    if (busy.length > 0) lines.push(`  (cores busy %, database / bench's: ${busy.join(', ')})`);
    // A write's database cost is mostly its commit's wait for the disk, which no core shows.
    const waits = (
      [
        ['api', r.api],
        ['baseline', r.baseline && 'api' in r.baseline ? r.baseline.api : undefined],
        ['bare', r.bare],
        ['driver', r.driver],
      ] as const
    ).flatMap(([label, s]) => (s?.waits ? [`${label} ${formatWaits(s.waits)}`] : []));
    if (waits.length > 0)
      lines.push(`  (database backends, mean active and what they waited on: ${waits.join('; ')})`);
  }
  return lines.join('\n');
}

/**
 * Each function's bundle and import time over the empty handler's and over the bare postgres.js
 * handler's (the route's own code); with a baseline's bundles
 * (`--baseline`, timed in the same rounds), its size and import beside them, and a function it
 * lacks (or this tree does) as "—".
 */
export function formatBundles(bundles: BundleReport[], baseline: BundleReport[] = []): string {
  const { empty: floor, driver: driverFloor } = floorsOf(bundles);
  // Each tree's functions over its own empty handler (the trees may bundle in different formats).
  const theirFloor = floorsOf(baseline).empty ?? floor;
  const over = (b: BundleReport | undefined, empty: BundleReport | undefined) =>
    b && empty ? b.importMs - empty.importMs : undefined;
  const overFloor = (b: BundleReport | undefined) => over(b, floor);
  const lines = [
    `function          size kB  import ms  +empty  +driver  ready ms  ×empty${
      baseline.length ? '  baseline: size kB  +empty  Δ import ms' : ''
    }  (as deployed, NODE_OPTIONS=${JSON.stringify(floor?.nodeOptions ?? '')}; without NODE_OPTIONS: import, ready)`,
  ];
  const names = [...bundles.map((b) => b.name), ...baseline.map((b) => b.name)];
  for (const name of [...new Set(names)]) {
    const b = bundles.find((x) => x.name === name);
    const before = baseline.find((x) => x.name === name);
    const ours = b
      ? [
          num(b.bytes / 1000).padStart(8),
          num(b.importMs).padStart(10),
          num(overFloor(b), 1).padStart(7),
          num(driverFloor && b.importMs - driverFloor.importMs, 1).padStart(8),
          num(b.readyMs).padStart(9),
          num(floor ? b.readyMs / floor.readyMs : undefined, 2).padStart(7),
        ]
      : [
          '—'.padStart(8),
          '—'.padStart(10),
          '—'.padStart(7),
          '—'.padStart(8),
          '—'.padStart(9),
          '—'.padStart(7),
        ];
    const theirs = baseline.length
      ? [
          (before ? num(before.bytes / 1000) : '—').padStart(19),
          (before ? num(over(before, theirFloor), 1) : '—').padStart(7),
          (b && before ? num(b.importMs - before.importMs, 1) : '—').padStart(12),
        ]
      : [];
    lines.push(
      [
        name.padEnd(16),
        ...ours,
        ...theirs,
        b ? `  (${num(b.importMsPlain)}, ${num(b.readyMsPlain)})` : '',
      ].join(' '),
    );
  }
  return lines.join('\n');
}

export function formatExplain(name: string, e: ExplainReport): string {
  return [
    `${name}: planning ${num(e.planningMs, 2)} ms, execution ${num(e.executionMs, 2)} ms, ` +
      `buffers hit ${e.sharedHit} read ${e.sharedRead}; rows read from the list index ${e.rowsReadFromListIndex}` +
      ` (heap fetches ${e.heapFetches}), rows returned ${e.rowsReturned}`,
    ...e.scans.map((s) => `    ${s}`),
  ].join('\n');
}

/**
 * One of the gateway's memory figures (RSS, or what V8 holds) in the first and second half of a
 * run: floor (the `floorQuantile`, 10th percentile by default), median, peak. Answers of a megabyte
 * make a GC sawtooth tens of MiB high: peaks and medians move with where collections happen to
 * fall, while a leak lifts the floor (what survives each collection). Just after full collections
 * the floor is the lowest (0): each of them also holds the pages in flight at that moment, so
 * their low percentiles move with the load, while none can hold less than what is retained.
 * Undefined with fewer than `fewestPerHalf` samples in each half.
 */
export function memoryHalves(
  samples: readonly MemorySample[],
  figure: 'rss' | 'held',
  fewestPerHalf = 4,
  floorQuantile = 0.1,
) {
  if (samples.length < fewestPerHalf * 2) return undefined;
  const column = figure === 'rss' ? 1 : 2;
  const half = Math.floor(samples.length / 2);
  const stats = (part: readonly MemorySample[]) => {
    const ys = part.map((sample) => sample[column]).sort((a, b) => a - b);
    return { floorMb: quantile(ys, floorQuantile), medianMb: quantile(ys, 0.5), peakMb: quantile(ys, 1) };
  };
  const first = stats(samples.slice(0, half));
  const second = stats(samples.slice(half));
  const seconds = (samples.at(-1)?.[0] ?? 0) - (samples[0]?.[0] ?? 0);
  return { seconds, first, second, floorGrowth: second.floorMb / first.floorMb - 1 };
}

/**
 * First invocations through the stand-ins, each against the bare postgres.js handler's (`select 1`)
 * and, for a function of ours, against its twin: the bare handler sending the same first statement.
 */
export function formatFirstInvocations(rows: FirstInvocation[]): string {
  const bare = rows.find((r) => r.name === 'bare-postgres');
  const lines = [
    'First invocation (fresh node, NODE_OPTIONS as deployed; secret from a local stand-in, TLS front to the database):',
    'handler                       import ms  first call ms  process start → answer ms  ×bare  ×twin',
  ];
  for (const r of rows) {
    const twin = rows.find((t) => t.name === r.twin);
    lines.push(
      [
        r.name.padEnd(28),
        num(r.importMs).padStart(10),
        num(r.firstCallMs).padStart(14),
        num(r.totalMs).padStart(26),
        num(bare ? r.totalMs / bare.totalMs : undefined, 2).padStart(6),
        num(twin ? r.totalMs / twin.totalMs : undefined, 2).padStart(6),
      ].join(' '),
    );
  }
  return lines.join('\n');
}

/** One figure now, at the baseline, and now ÷ baseline (NaN when either is missing). */
export interface Delta {
  current: number;
  baseline: number;
  ratio: number;
}

const delta = (current: number | undefined, baseline: number | undefined): Delta => ({
  current: current ?? Number.NaN,
  baseline: baseline ?? Number.NaN,
  ratio: (current ?? Number.NaN) / (baseline ?? Number.NaN),
});

export interface BaselineDelta {
  name: string;
  /** Answers per second: above 1, the working tree answers more. */
  rps: Delta;
  /** The database server's CPU per answer: below 1, each answer costs the database less. */
  dbCpu: Delta;
  /** The gateway process's CPU per answer. */
  cpu: Delta;
  p50: Delta;
  /** Statements per request, once the authorizer's answer is cached. */
  statements: Delta;
  /** Why the baseline has no figures for this operation. */
  skipped?: string;
}

/** Every operation measured with a baseline: the working tree's figures ÷ the baseline's. */
export function baselineDeltas(results: OperationResult[]): BaselineDelta[] {
  return results.flatMap((r) => {
    if (!r.baseline) return [];
    const b = 'api' in r.baseline ? r.baseline : undefined;
    return [
      {
        name: r.name,
        rps: delta(r.api.rps, b?.api.rps),
        dbCpu: delta(r.api.dbCpuMsPerRequest, b?.api.dbCpuMsPerRequest),
        cpu: delta(r.api.cpuMsPerRequest, b?.api.cpuMsPerRequest),
        p50: delta(r.api.p50, b?.api.p50),
        statements: delta(r.statements.length, b?.statements.length),
        ...('skipped' in r.baseline ? { skipped: r.baseline.skipped } : {}),
      },
    ];
  });
}

/**
 * The working tree's API against the baseline's, both through the local gateway on the same data,
 * their slices taken in turns: req/s, the database's CPU per answer, the gateway's, p50.
 */
export function formatBaselineDeltas(results: OperationResult[], label: string): string {
  const widths = [34, 7, 7, 6, 7, 7, 6, 7, 7, 6, 6];
  const three = (d: Delta, digits: number) => [
    num(d.current, digits),
    num(d.baseline, digits),
    num(d.ratio, 2),
  ];
  const lines = [
    `Against the baseline ${label}: now ÷ baseline, same data, slices in turns (reported, never asserted)`,
    pad(['operation', 'req/s', 'base', '×', 'DB CPU', 'base', '×', 'gw CPU', 'base', '×', 'p50 ×'], widths),
  ];
  for (const d of baselineDeltas(results)) {
    if (d.skipped) {
      lines.push(`${d.name.padEnd(widths[0] ?? 0)}  (${d.skipped})`);
      continue;
    }
    const statements =
      d.statements.current === d.statements.baseline
        ? ''
        : `  statements ${d.statements.baseline} → ${d.statements.current}`;
    lines.push(
      pad(
        [d.name, ...three(d.rps, 0), ...three(d.dbCpu, 2), ...three(d.cpu, 2), num(d.p50.ratio, 2)],
        widths,
      ) + statements,
    );
  }
  lines.push('  (DB CPU and gw CPU: ms per answer, of the database server and of each gateway process)');
  return lines.join('\n');
}
