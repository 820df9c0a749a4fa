import type postgres from 'postgres';
import type { Statement } from './gateway-process.ts';
import { median } from './stats.ts';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Heap Fetches'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export interface ExplainReport {
  planningMs: number;
  executionMs: number;
  /** Rows the statement returned. */
  rowsReturned: number;
  /** Rows read from the list index (the page CTE's scan), loops included. */
  rowsReadFromListIndex: number;
  /** Heap visits the index-only scan still needed (0 when the visibility map is current). */
  heapFetches: number;
  sharedHit: number;
  sharedRead: number;
  /** Every scan in the plan: `Index Only Scan sessions_workspace_created: 90026 rows × 1`. */
  scans: string[];
  text: string;
}

const walk = (node: PlanNode, visit: (n: PlanNode) => void) => {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
};

type ExplainJson = Array<{ Plan: PlanNode; 'Planning Time': number; 'Execution Time': number }>;

/** How many EXPLAINs are timed after the first (which loads the connection's catalog caches). */
const TIMED_RUNS = 7;

/**
 * EXPLAIN (ANALYZE, BUFFERS) of each statement exactly as it was sent, summarised. Planning and
 * execution are the medians of TIMED_RUNS after a discarded first run (a connection's first plan
 * of a statement also loads the catalog, which the API's long-lived connections have done
 * already). The statements take turns, run by run, so a commit and its baseline meet the same
 * phase of the machine, whose drift within a minute moves one run in sequence against another.
 */
export async function explainEach(
  sql: postgres.Sql,
  statements: Statement[],
  listIndex: string,
): Promise<ExplainReport[]> {
  const runs: ExplainJson[] = statements.map(() => []);
  for (let i = 0; i <= TIMED_RUNS; i++) {
    for (const [k, statement] of statements.entries()) {
      const params = statement.parameters as never[];
      const [json] = await sql.unsafe(`explain (analyze, buffers, format json) ${statement.query}`, params);
      const [run] = (json as unknown as { 'QUERY PLAN': ExplainJson })['QUERY PLAN'];
      if (run && i > 0) runs[k]?.push(run);
    }
  }
  return Promise.all(statements.map((statement, k) => summary(sql, statement, runs[k] ?? [], listIndex)));
}

async function summary(
  sql: postgres.Sql,
  statement: Statement,
  runs: ExplainJson,
  listIndex: string,
): Promise<ExplainReport> {
  const params = statement.parameters as never[];
  const text = await sql.unsafe(`explain (analyze, buffers) ${statement.query}`, params);
  const top = runs[0];
  if (!top) throw new Error('EXPLAIN returned no plan');
  const scans: string[] = [];
  let rowsRead = 0;
  let heapFetches = 0;
  walk(top.Plan, (n) => {
    if (!n['Node Type'].includes('Scan')) return;
    const on = n['Index Name'] ?? n['Relation Name'] ?? '';
    scans.push(`${n['Node Type']} ${on}: ${n['Actual Rows']} rows × ${n['Actual Loops']}`);
    if (n['Index Name'] === listIndex) {
      rowsRead += n['Actual Rows'] * n['Actual Loops'];
      heapFetches += n['Heap Fetches'] ?? 0;
    }
  });
  return {
    planningMs: median(runs.map((run) => run['Planning Time'])),
    executionMs: median(runs.map((run) => run['Execution Time'])),
    rowsReturned: top.Plan['Actual Rows'],
    rowsReadFromListIndex: rowsRead,
    heapFetches,
    sharedHit: top.Plan['Shared Hit Blocks'] ?? 0,
    sharedRead: top.Plan['Shared Read Blocks'] ?? 0,
    scans,
    text: text.map((row) => row['QUERY PLAN']).join('\n'),
  };
}
