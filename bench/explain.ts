import type postgres from 'postgres';
import type { Statement } from './gateway-process.ts';

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

/** EXPLAIN (ANALYZE, BUFFERS) of a statement exactly as the API sent it, summarised. */
export async function explain(
  sql: postgres.Sql,
  statement: Statement,
  listIndex: string,
): Promise<ExplainReport> {
  const params = statement.parameters as never[];
  const [json] = await sql.unsafe(`explain (analyze, buffers, format json) ${statement.query}`, params);
  const text = await sql.unsafe(`explain (analyze, buffers) ${statement.query}`, params);
  const top = (
    json as unknown as {
      'QUERY PLAN': Array<{ Plan: PlanNode; 'Planning Time': number; 'Execution Time': number }>;
    }
  )['QUERY PLAN'][0];
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
    planningMs: top['Planning Time'],
    executionMs: top['Execution Time'],
    rowsReturned: top.Plan['Actual Rows'],
    rowsReadFromListIndex: rowsRead,
    heapFetches,
    sharedHit: top.Plan['Shared Hit Blocks'] ?? 0,
    sharedRead: top.Plan['Shared Read Blocks'] ?? 0,
    scans,
    text: text.map((row) => row['QUERY PLAN']).join('\n'),
  };
}
