import sql, { join, raw, type Sql } from 'sql-template-tag';
import type { SqlRunner } from '../database.ts';
import type { JsonText } from './json-text.ts';

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

/** AND of the conditions. */
export const allOf = (conditions: Sql[]) => join(conditions, ' and ');

/** `value in (…)`, one parameter per value. */
export const isIn = (column: string, values: readonly unknown[]) =>
  sql`${raw(column)} in (${join(values as unknown[])})`;

/** The list's direction as SQL: newest first unless `asc`. */
export const direction = (window: ListWindow) => raw(window.order === 'asc' ? 'asc' : 'desc');

/**
 * The `page` CTE: the window's `id`s and `created_at`s, paged on the list index (late row lookup:
 * `offset` skips index entries only). `limit + 1` rows, so the caller knows whether another page
 * follows. `table` is our own identifier, `conditions` read the bare table.
 */
export function pageCte(table: 'sessions' | 'agents', conditions: Sql[], window: ListWindow): Sql {
  const dir = direction(window);
  const { after } = window;
  // `(created_at, id)` past the cursor position, in the list's direction: a range on the list index.
  const past = after
    ? [
        sql`(created_at, id) ${raw(window.order === 'asc' ? '>' : '<')} (${after.createdAt}::timestamptz, ${after.id})`,
      ]
    : [];
  return sql`page as (
      select id, created_at from ${raw(table)}
      where ${allOf([...conditions, ...past])}
      order by created_at ${dir}, id ${dir}
      limit ${window.limit + 1} offset ${after ? 0 : window.offset}
    )`;
}

/**
 * One page of a list as its JSON items, in one statement: `pageCte`, then `item`, written over
 * `alias`, is built for those rows alone, each row fetched by its primary key in a scalar subquery
 * (with a join the planner hash-joined a 250-row page against a sequential scan of the whole
 * table). Each item is Postgres's JSON text, never parsed here.
 */
export async function pageItems<T>(
  runner: SqlRunner,
  table: 'sessions' | 'agents',
  alias: string,
  item: string,
  conditions: Sql[],
  window: ListWindow,
): Promise<JsonText<T>[]> {
  const dir = direction(window);
  const rows = await runner.rows<{ item: JsonText<T> }>(sql`
    with ${pageCte(table, conditions, window)}
    select (select ${raw(item)} from ${raw(table)} ${raw(alias)} where ${raw(alias)}.id = page.id)::text as item
    from page
    order by page.created_at ${dir}, page.id ${dir}`);
  return rows.map((r) => r.item);
}

/** How many rows of `table` the conditions match, for `includeTotal`. */
export async function countMatching(
  runner: SqlRunner,
  table: 'sessions' | 'agents',
  conditions: Sql[],
): Promise<number> {
  const rows = await runner.rows<{ n: number }>(
    sql`select count(*)::int as n from ${raw(table)} where ${allOf(conditions)}`,
  );
  return rows[0]?.n ?? 0;
}
