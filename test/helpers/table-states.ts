import { eq, getTableName, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Database } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import {
  agentChanges,
  agents,
  agentVersions,
  conversations,
  events,
  idempotencyKeys,
  ledgerBalances,
  ledgerEntries,
  ledgerUsageAgentDaily,
  ledgerUsageQuarterHourly,
  ledgerUsageReasonQuarterHourly,
  persons,
  sessions,
  webhookDeliveries,
  webhookEndpoints,
} from '#db/schema/index.ts';

/** Every table a route's request may write to (the keys and workspaces are the tools'). */
export const WRITTEN = [
  agents,
  agentVersions,
  agentChanges,
  sessions,
  persons,
  conversations,
  ledgerEntries,
  // kept by the ledger's trigger in the same transaction as its entries
  ledgerBalances,
  ledgerUsageQuarterHourly,
  ledgerUsageReasonQuarterHourly,
  ledgerUsageAgentDaily,
  events,
  idempotencyKeys,
  webhookEndpoints,
  webhookDeliveries,
] as const;

/** Their names. */
export const writtenTables = WRITTEN.map((table) => getTableName(table));

/**
 * Each of those tables' row count and a digest of all its rows, in one statement: equal before and
 * after a request means it wrote nothing (no row added, removed or changed, the outbox and the
 * idempotency keys included). With `workspaceId`, only that workspace's rows (every such table
 * holds its workspace's id): what another workspace's caller must leave alone.
 */
export async function tableStates(
  db: Database,
  options: { workspaceId?: string } = {},
): Promise<Record<string, { rows: number; digest: string }>> {
  const columns = WRITTEN.map((table) => {
    const name = sql.identifier(getTableName(table));
    const only =
      options.workspaceId === undefined ? sql`` : sql` where ${table.workspaceId} = ${options.workspaceId}`;
    return sql`(select jsonb_build_object('rows', count(*)::int,
      'digest', md5(coalesce(string_agg(${name}::text, '|' order by ${name}::text), ''))) from ${name}${only}) as ${name}`;
  });
  const [row] = rowsOf<Record<string, { rows: number; digest: string }>>(
    await db.execute(sql`select ${sql.join(columns, sql`, `)}`),
  );
  if (!row) throw new Error('no table states');
  return row;
}

export type TableStates = Awaited<ReturnType<typeof tableStates>>;

/**
 * Nothing written by a refused request since `before`, but for what docs/decisions.md
 * ("Idempotency") keeps: a 4xx decided once the Idempotency-Key was claimed is recorded for
 * replay, one row under that key holding that very answer (never a claim left in flight).
 */
export async function expectNothingWritten(
  db: Database,
  before: TableStates,
  answered: { status: number; idempotencyKey?: string },
) {
  const { idempotency_keys: keysBefore, ...restBefore } = before;
  const { idempotency_keys: keysAfter, ...restAfter } = await tableStates(db);
  expect(restAfter).toEqual(restBefore);
  const added = (keysAfter?.rows ?? 0) - (keysBefore?.rows ?? 0);
  if (answered.idempotencyKey === undefined || added === 0) {
    expect(keysAfter).toEqual(keysBefore);
    return;
  }
  expect(added).toBe(1);
  const recorded = await db
    .select({ status: idempotencyKeys.responseStatus })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.key, answered.idempotencyKey));
  expect(recorded).toEqual([{ status: answered.status }]);
}
