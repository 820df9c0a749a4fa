import { sql } from 'drizzle-orm';
import type { TierName } from '#contract/tiers.ts';
import type { Database } from '../client.ts';
import { rowsOf } from './rows.ts';

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
      update workspaces w set tier = ${tier}, updated_at = now()
      from (select id, tier from workspaces where id = ${id} for update) before
      where w.id = before.id
      returning w.id as id, w.name as name, w.created_at as "createdAt", w.tier::text as tier,
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
