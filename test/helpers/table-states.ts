import { getTableName, sql } from 'drizzle-orm';
import type { Database } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import {
  agentChanges,
  agents,
  agentVersions,
  conversations,
  events,
  idempotencyKeys,
  ledgerEntries,
  persons,
  sessions,
} from '#db/schema/index.ts';

/** Every table a route's request may write to (the keys and workspaces are the tools'). */
const WRITTEN = [
  agents,
  agentVersions,
  agentChanges,
  sessions,
  persons,
  conversations,
  ledgerEntries,
  events,
  idempotencyKeys,
];

/**
 * Each of those tables' row count and a digest of all its rows, in one statement: equal before and
 * after a request means it wrote nothing (no row added, removed or changed, the outbox and the
 * idempotency keys included).
 */
export async function tableStates(db: Database): Promise<Record<string, { rows: number; digest: string }>> {
  const columns = WRITTEN.map((table) => {
    const name = sql.identifier(getTableName(table));
    return sql`(select jsonb_build_object('rows', count(*)::int,
      'digest', md5(coalesce(string_agg(x::text, '|' order by x::text), ''))) from ${name} x) as ${name}`;
  });
  const [row] = rowsOf<Record<string, { rows: number; digest: string }>>(
    await db.execute(sql`select ${sql.join(columns, sql`, `)}`),
  );
  if (!row) throw new Error('no table states');
  return row;
}
