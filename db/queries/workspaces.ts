import { createId } from '@paralleldrive/cuid2';
import { asc, sql } from 'drizzle-orm';
import { TRIAL_CREDIT } from '#contract/limits.ts';
import type { Database } from '../client.ts';
import { workspaces } from '../schema/index.ts';
import { rowsOf } from './rows.ts';

/**
 * A workspace always comes with its default theme (new agent versions point at it), and opens with
 * its trial credit, an INITIAL_BALANCE entry (docs/decisions.md, the ledger).
 */
export async function createWorkspace(
  db: Database,
  name: string,
  id: string = createId(),
): Promise<{ id: string; themeId: string; createdAt: string }> {
  const themeId = createId();
  const [row] = rowsOf<{ createdAt: string | Date }>(
    await db.execute(sql`
      with w as (
        insert into workspaces (id, name) values (${id}, ${name})
        returning id, created_at
      ), trial as (
        insert into ledger_entries (id, created_at, updated_at, workspace_id, amount, reason, reason_details)
        select ${createId()}, w.created_at, w.created_at, w.id, ${TRIAL_CREDIT}, 'INITIAL_BALANCE', 'Trial credit' from w
      )
      insert into themes (id, workspace_id, name, is_default)
      select ${themeId}, w.id, 'Default', true from w
      returning (select created_at from w) as "createdAt"`),
  );
  return { id, themeId, createdAt: new Date(row?.createdAt ?? Number.NaN).toISOString() };
}

/** The first workspace created, if any: the one `npm start` gives its demo key to. */
export async function oldestWorkspaceId(db: Database): Promise<string | undefined> {
  const [oldest] = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .orderBy(asc(workspaces.createdAt), asc(workspaces.id))
    .limit(1);
  return oldest?.id;
}

/** Every workspace, oldest first: an operator's list, not an API page (there are few). */
export function listWorkspaces(db: Database) {
  return db
    .select({
      id: workspaces.id,
      name: workspaces.name,
      tier: workspaces.tier,
      createdAt: workspaces.createdAt,
    })
    .from(workspaces)
    .orderBy(asc(workspaces.createdAt), asc(workspaces.id));
}

export async function workspaceExists(db: Database, id: string): Promise<boolean> {
  const rows = rowsOf(await db.execute(sql`select 1 from workspaces where id = ${id}`));
  return rows.length > 0;
}
