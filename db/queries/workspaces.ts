import { createId } from '@paralleldrive/cuid2';
import { sql } from 'drizzle-orm';
import type { Database } from '../client.ts';
import { themes, workspaces } from '../schema/index.ts';
import { rowsOf } from './rows.ts';

/** A workspace always comes with its default theme (new agent versions point at it). */
export async function createWorkspace(db: Database, name: string): Promise<{ id: string; themeId: string }> {
  const id = createId();
  const themeId = createId();
  await db.execute(sql`
    with w as (insert into ${workspaces} (id, name) values (${id}, ${name}) returning id)
    insert into ${themes} (id, workspace_id, name, is_default) select ${themeId}, w.id, 'Default', true from w`);
  return { id, themeId };
}

export async function workspaceExists(db: Database, id: string): Promise<boolean> {
  const rows = rowsOf(await db.execute(sql`select 1 from ${workspaces} where id = ${id}`));
  return rows.length > 0;
}
