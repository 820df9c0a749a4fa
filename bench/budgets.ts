import { OFFSET_MAX } from '#contract/limits.ts';
import { type BundleReport, floorsOf, isFloor } from './bundles.ts';
import type { ExplainReport } from './explain.ts';
import type { FirstInvocation } from './first-invocation.ts';
import { formatInterval, ratioInterval } from './intervals.ts';
import type { OperationResult } from './measure.ts';
import { memoryHalves, ratios } from './report.ts';
import type { WebhookResult } from './webhooks.ts';

export interface BudgetCheck {
  budget: string;
  measured: string;
  /** null: not judged (the run was too short or the operation was left out). */
  met: boolean | null;
}

/** A route's module init over an empty handler's: what a cold start pays for the code itself. */
export const IMPORT_OVER_EMPTY_MS = 10;

const fixed = (n: number | undefined, digits = 2) => (n === undefined ? 'n/a' : n.toFixed(digits));

/** DESIGN.md's "Performance budgets" and issue 5's, checked against one run. Reported, never asserted. */
export function checkBudgets(
  results: OperationResult[],
  bundles: BundleReport[],
  quick: boolean,
  explains: Record<string, ExplainReport>,
  firstInvocations: FirstInvocation[],
  webhooks?: WebhookResult,
): BudgetCheck[] {
  const byName = (prefix: string) => results.find((r) => r.name.startsWith(prefix));
  const checks: BudgetCheck[] = [];
  for (const r of results) {
    const list = r.name.startsWith('GET');
    const count = r.statements.length;
    const kinds = r.statements.map((s) => s.query.trim().split(/\s+/)[0]?.toLowerCase()).join(', ');
    checks.push({
      budget: `${r.name}: ${list ? 'exactly one statement' : 'one transaction, ideally one statement'}`,
      measured: `${count} (${kinds}); ${fixed(r.statementsUnderLoad, 4)} per request under load`,
      met: list ? count === 1 : count === 1 || (kinds.startsWith('begin') && kinds.endsWith('commit')),
    });
  }
  const page250 = byName('GET /sessions limit 250');
  const page25 = byName('GET /sessions limit 25');
  const deep = byName('GET /sessions offset');
  const keyset = byName('GET /sessions cursor');
  const r250 = page250 && ratios(page250.api, page250.bare);
  const r25 = page25 && ratios(page25.api, page25.bare);
  checks.push({
    budget: 'GET /sessions?limit=250 p50 ≤ 1.5 × bare baseline',
    measured: `${fixed(r250?.p50)} ×`,
    met: r250 === undefined ? null : r250.p50 <= 1.5,
  });
  checks.push({
    budget: 'GET /sessions?limit=25 req/s ≥ 0.7 × bare baseline',
    measured: `${fixed(r25?.rps)} ×`,
    met: r25 === undefined ? null : r25.rps >= 0.7,
  });
  // Every operation close to the driver sending its own statement, ahead of the idiomatic peer.
  const driverGoal = quick ? 0.85 : 0.9;
  for (const r of results) {
    const ratio = ratios(r.api, r.driver);
    checks.push({
      budget: `${r.name}: req/s ≥ ${driverGoal} × postgres.js statement alone`,
      measured: `${fixed(ratio?.rps)} ×${formatInterval(ratioInterval(r.slices, 'api', 'driver'))}`,
      met: ratio === undefined ? null : ratio.rps >= driverGoal,
    });
  }
  for (const r of results) {
    const ratio = ratios(r.api, r.peer);
    checks.push({
      budget: `${r.name}: API ahead of the Drizzle relational peer (req/s)`,
      measured: ratio
        ? `${fixed(ratio.rps)} × its req/s, p50 ${fixed(ratio.p50)} ×, CPU ${fixed(ratio.cpu)} ×${
            r.peerSameAnswer === false ? '; the peer answered a different document' : ''
          }${r.peer?.errors ? `; the peer failed ${r.peer.errors} requests (10 s timeouts)` : ''}`
        : 'not measured',
      met: ratio === undefined ? null : ratio.rps > 1,
    });
  }
  // A month's usage by day (quarter-hour rollups) or agent (daily), at 1,000,000 entries (the standard size).
  for (const [name, e] of Object.entries(explains).filter(([n]) => n.startsWith('GET /usage'))) {
    checks.push({
      budget: `${name}: execution ≤ 50 ms (EXPLAIN ANALYZE)`,
      measured: `${fixed(e.executionMs)} ms (planning ${fixed(e.planningMs)} ms)`,
      met: e.executionMs <= 50,
    });
  }
  for (const [name, e] of Object.entries(explains)) {
    const seq = e.scans.filter((scan) => /^Seq Scan sessions\b/.test(scan));
    checks.push({
      budget: `${name}: no sequential scan of sessions`,
      measured: seq.length
        ? seq.join('; ')
        : `none (planning ${fixed(e.planningMs)} ms, execution ${fixed(e.executionMs)} ms)`,
      met: seq.length === 0,
    });
  }
  const explain250 = page250 && explains[page250.name];
  checks.push({
    budget: 'GET /sessions?limit=250: execution ≤ 10 ms in the EXPLAIN (ANALYZE) on 100,000 sessions',
    measured: `${fixed(explain250?.executionMs)} ms`,
    met: explain250 === undefined || quick ? null : explain250.executionMs <= 10,
  });
  // `--baseline`: the two lists at or above the baseline commit's answers per second, same run.
  for (const r of [page25, page250]) {
    const before = r?.baseline && 'api' in r.baseline ? r.baseline.api : undefined;
    if (!r || !before) continue;
    checks.push({
      budget: `${r.name}: req/s ≥ the baseline commit's (--baseline, same run)`,
      measured: `${fixed(r.api.rps / before.rps)} × (${r.api.rps.toFixed(0)} vs ${before.rps.toFixed(0)})${formatInterval(
        ratioInterval(r.slices, 'api', 'baseline'),
      )}`,
      met: r.api.rps >= before.rps,
    });
  }
  const deepRatio = deep && page25 ? deep.api.p50 / page25.api.p50 : undefined;
  const keysetRatio = keyset && page25 ? keyset.api.p50 / page25.api.p50 : undefined;
  checks.push({
    budget: `deepest offset (${OFFSET_MAX} at most; deeper pages by cursor) p50 ≤ 3 × first page p50 (both limit 25)`,
    measured: `${fixed(deepRatio)} × (by cursor at the same depth: ${fixed(keysetRatio)} ×)`,
    met: deepRatio === undefined ? null : deepRatio <= 3,
  });
  const { empty: floor, driver: driverFloor } = floorsOf(bundles);
  for (const b of bundles.filter((x) => !isFloor(x.name))) {
    checks.push({
      budget: `${b.name}: bundle ≤ 250 kB minified`,
      measured: `${(b.bytes / 1000).toFixed(1)} kB`,
      met: b.bytes <= 250_000,
    });
    const extra = floor ? b.importMs - floor.importMs : undefined;
    checks.push({
      budget: `${b.name}: import ≤ empty handler's + ${IMPORT_OVER_EMPTY_MS} ms`,
      measured: `+${fixed(extra, 1)} ms (${b.importMs.toFixed(1)} vs ${floor?.importMs.toFixed(1)} ms; its own code +${fixed(
        driverFloor && b.importMs - driverFloor.importMs,
        1,
      )} ms over the postgres.js handler; process ready ${
        floor ? (b.readyMs / floor.readyMs).toFixed(2) : 'n/a'
      } ×)`,
      met: extra !== undefined && extra <= IMPORT_OVER_EMPTY_MS,
    });
  }
  // Issue 12: process start to the first answer, against the bare handler sending the same statement.
  for (const f of firstInvocations.filter((x) => x.twin)) {
    const twin = firstInvocations.find((t) => t.name === f.twin);
    const ratio = twin && f.totalMs / twin.totalMs;
    checks.push({
      budget: `${f.name}: first invocation ≤ 1.5 × a bare postgres.js handler sending its statement`,
      measured: `${fixed(ratio)} × (${f.totalMs.toFixed(0)} vs ${twin?.totalMs.toFixed(0)} ms)`,
      met: ratio === undefined ? null : ratio <= 1.5,
    });
  }
  // Locally, the relay and worker on `npm start`'s cadence: nothing missing, p99 within 2 s.
  const hooks = webhooks?.latency;
  checks.push({
    budget: 'webhooks: event commit → delivery p99 ≤ 2 s at 200 events/s (local loops)',
    measured: hooks
      ? `p99 ${hooks.p99.toFixed(0)} ms, p50 ${hooks.p50.toFixed(0)} ms; ${hooks.missing} of ${hooks.written} not delivered`
      : 'n/a',
    met: hooks === undefined ? null : hooks.p99 <= 2_000 && hooks.missing === 0,
  });
  // Flat: the least V8 holds just after a full collection (the live set, and the pages then in
  // flight) in the soak's second half is within 5% of the first half's; with too few collections
  // to tell, the 10th percentile of what it holds at any time (see memoryHalves). RSS is reported
  // beside it, not judged: it steps up once to a plateau when the heap is resized or the allocator
  // keeps freed pages, at a time that varies.
  const afterGc = page250 && memoryHalves(page250.memoryAfterFullGc, 'held', 2, 0);
  const held = afterGc ?? (page250 && memoryHalves(page250.memory, 'held'));
  const rss = page250 && memoryHalves(page250.memory, 'rss');
  const mb = (h: { floorMb: number; medianMb: number; peakMb: number }) =>
    `${h.floorMb.toFixed(0)}/${h.medianMb.toFixed(0)}/${h.peakMb.toFixed(0)}`;
  checks.push({
    budget: `gateway memory flat over the ${quick ? 'short (quick mode: not conclusive)' : 'soak'} limit-250 run (V8 heap used + external${afterGc ? ', after each full collection' : ''})`,
    measured:
      held && rss
        ? `floor/median/peak ${mb(held.first)} → ${mb(held.second)} MiB held${afterGc ? ` after each of ${page250?.memoryAfterFullGc.length} full collections` : ''}, RSS ${mb(rss.first)} → ${mb(rss.second)} (first → second half of ${held.seconds.toFixed(0)} s)`
        : 'too few samples',
    met: held === undefined ? null : held.floorGrowth < 0.05,
  });
  return checks;
}
