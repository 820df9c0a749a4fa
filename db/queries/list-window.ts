import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Database } from '../client.ts';
import type { JsonText } from './json.ts';
import { rowsOf } from './rows.ts';

/**
 * Which slice of a list to read: every list is ordered by (created_at, id), newest first unless
 * `asc`, and starts either `offset` rows in or strictly after a keyset position (cursor paging).
 */
export interface ListWindow {
  limit: number;
  offset: number;
  /** Default `desc`. */
  order?: 'asc' | 'desc';
  after?: { createdAt: string; id: string };
}

/** `(created_at, id)` past the cursor position, in the list's direction: a range on the list index. */
function afterPosition(columns: { createdAt: PgColumn; id: PgColumn }, window: ListWindow): SQL | undefined {
  if (!window.after) return undefined;
  const op = sql.raw(window.order === 'asc' ? '>' : '<');
  return sql`(${columns.createdAt}, ${columns.id}) ${op} (${window.after.createdAt}::timestamptz, ${window.after.id})`;
}

/** ORDER BY for the list's direction, on any alias of (created_at, id). */
function listOrder(createdAt: SQL, id: SQL, window: ListWindow): SQL {
  const dir = sql.raw(window.order === 'asc' ? 'asc' : 'desc');
  return sql`${createdAt} ${dir}, ${id} ${dir}`;
}

/** `limit + 1` rows, so the caller can tell whether another page follows. */
const limitOffset = (window: ListWindow) =>
  sql`limit ${window.limit + 1} offset ${window.after ? 0 : window.offset}`;

/** AND of the conditions that are set. */
export const allOf = (conditions: (SQL | undefined)[]) =>
  sql.join(
    conditions.filter((c): c is SQL => c !== undefined),
    sql` and `,
  );

/**
 * One page of a list as its JSON items, in one statement: the ids are paged on the list index
 * (late row lookup: `offset` skips index entries only), then `item`, written over `alias`, is built
 * for those rows alone, each row fetched by its primary key in a scalar subquery (with a join the
 * planner hash-joined a 250-row page against a sequential scan of the whole table). `limit + 1`
 * rows, so the caller knows whether another page follows. Each item is Postgres's JSON text, never
 * parsed here.
 */
export async function pageItems<T>(
  db: Database,
  table: PgTable & { id: PgColumn; createdAt: PgColumn },
  alias: string,
  item: SQL,
  conditions: SQL[],
  window: ListWindow,
): Promise<JsonText<T>[]> {
  const where = allOf([...conditions, afterPosition(table, window)]);
  const rowAlias = sql.identifier(alias);
  const rows = await db.execute(sql`
    with page as (
      select ${table.id} as id, ${table.createdAt} as created_at from ${table}
      where ${where}
      order by ${listOrder(sql`${table.createdAt}`, sql`${table.id}`, window)}
      ${limitOffset(window)}
    )
    select (select ${item} from ${table} ${rowAlias} where ${rowAlias}.id = page.id)::text as item
    from page
    order by ${listOrder(sql`page.created_at`, sql`page.id`, window)}`);
  return rowsOf<{ item: JsonText<T> }>(rows).map((r) => r.item);
}
