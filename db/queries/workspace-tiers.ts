import { type AnyColumn, sql } from 'drizzle-orm';
import type { TierName } from '#contract/tiers.ts';
import type { Database } from '../client.ts';
import { workspaces } from '../schema/index.ts';
import { rowsOf } from './rows.ts';

/** A column's bare name (Drizzle writes columns qualified by their table, not by an alias). */
const c = (column: AnyColumn) => sql.identifier(column.name);

export interface TierChange {
  id: string;
  name: string;
  createdAt: string | Date;
  tier: TierName;
  previousTier: TierName;
}

/** Sets a workspace's tier in one statement, answering the tier it had; undefined: no such workspace. */
export async function setWorkspaceTier(
  db: Database,
  id: string,
  tier: TierName,
): Promise<TierChange | undefined> {
  const rows = rowsOf<TierChange>(
    await db.execute(sql`
      update ${workspaces} w set ${c(workspaces.tier)} = ${tier}, ${c(workspaces.updatedAt)} = now()
      from (
        select ${c(workspaces.id)} as id, ${c(workspaces.tier)} as tier from ${workspaces}
        where ${c(workspaces.id)} = ${id} for update
      ) before
      where w.${c(workspaces.id)} = before.id
      returning w.${c(workspaces.id)} as id, w.${c(workspaces.name)} as name,
        w.${c(workspaces.createdAt)} as "createdAt", w.${c(workspaces.tier)}::text as tier,
        before.tier::text as "previousTier"`),
  );
  return rows[0];
}

/** Workspaces' ids and tiers in id order, `limit` after `after`: the key reconcile pages through them all. */
export async function workspaceTiersAfter(
  db: Database,
  after: string,
  limit: number,
): Promise<Array<{ id: string; tier: TierName }>> {
  return rowsOf(
    await db.execute(sql`
      select id, tier::text as tier from workspaces where id > ${after} order by id limit ${limit}`),
  );
}
