import { createId } from '@paralleldrive/cuid2';
import { asc, sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { themes, workspaces } from '../schema/index.ts';
import { rowsOf } from './rows.ts';

/** A workspace always comes with its default theme (new agent versions point at it). */
export async function createWorkspace(
  db: Database,
  name: string,
): Promise<{ id: string; themeId: string; createdAt: string }> {
  const id = createId();
  const themeId = createId();
  const [row] = rowsOf<{ createdAt: string | Date }>(
    await db.execute(sql`
      with w as (insert into ${workspaces} (id, name) values (${id}, ${name}) returning id, created_at)
      insert into ${themes} (id, workspace_id, name, is_default) select ${themeId}, w.id, 'Default', true from w
      returning (select created_at from w) as "createdAt"`),
  );
  return { id, themeId, createdAt: new Date(row?.createdAt ?? Number.NaN).toISOString() };
}

/** Every workspace, oldest first: an operator's list, not an API page (there are few). */
export function listWorkspaces(db: Database) {
  return db
    .select({ id: workspaces.id, name: workspaces.name, createdAt: workspaces.createdAt })
    .from(workspaces)
    .orderBy(asc(workspaces.createdAt), asc(workspaces.id));
}

export async function workspaceExists(db: Database, id: string): Promise<boolean> {
  const rows = rowsOf(await db.execute(sql`select 1 from ${workspaces} where id = ${id}`));
  return rows.length > 0;
}
