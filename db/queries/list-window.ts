import sql, { join, raw, type Sql } from 'sql-template-tag';
import type { SqlRunner } from '../database.ts';
import type { JsonText } from './json-text.ts';
import type { agentChanges, agents, ledgerEntries, sessions } from './names.generated.ts';

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

/** A listed table's names (db/queries/names.generated.ts). */
export type ListTable = typeof sessions | typeof agents | typeof agentChanges | typeof ledgerEntries;

/** AND of the conditions. */
export const allOf = (conditions: Sql[]) => join(conditions, ' and ');

/** `column in (…)`, one parameter per value. */
export const isIn = (column: Sql, values: readonly unknown[]) =>
  sql`${column} in (${join(values as unknown[])})`;

/** The list's direction as SQL: newest first unless `asc`. */
export const direction = (window: ListWindow) => raw(window.order === 'asc' ? 'asc' : 'desc');

/**
 * The `page` CTE: the window's `id`s and `created_at`s, paged on the list index (late row lookup:
 * `offset` skips index entries only). `limit + 1` rows, so the caller knows whether another page
 * follows. `conditions` read the bare table.
 */
export function pageCte(t: ListTable, conditions: Sql[], window: ListWindow): Sql {
  const dir = direction(window);
  const { after } = window;
  // `(created_at, id)` past the cursor position, in the list's direction: a range on the list index.
  const past = after
    ? [
        sql`(${t.createdAt}, ${t.id}) ${raw(window.order === 'asc' ? '>' : '<')} (${after.createdAt}::timestamptz, ${after.id})`,
      ]
    : [];
  return sql`page as (
  select ${t.id}, ${t.createdAt} from ${t.$}
  where ${allOf([...conditions, ...past])}
  order by ${t.createdAt} ${dir}, ${t.id} ${dir}
  limit ${window.limit + 1} offset ${after ? 0 : window.offset}
)`;
}

/** A page's items, and how many rows match in all when it was asked for. */
export interface Page<T> {
  items: JsonText<T>[];
  total?: number;
}

/**
 * Runs a generated page statement (db/queries/items.generated.ts): `limit + 1` items, and with
 * `includeTotal` the count of matching rows, from the same statement and so the same snapshot as
 * the items (as two statements, writes between them made the count disagree with the page).
 * `live`: the calling key's guard (api-keys.ts `keyIsLive`), once, in the statement's top level.
 */
export async function runPage<T>(
  runner: SqlRunner,
  statement: (page: Sql, dir: Sql, total: Sql, live: Sql) => Sql,
  t: ListTable,
  conditions: Sql[],
  window: ListWindow,
  includeTotal: boolean,
  live: Sql,
): Promise<Page<T>> {
  const total = includeTotal
    ? sql`(select count(*)::int from ${t.$} where ${allOf(conditions)})`
    : raw('null::int');
  const rows = await runner.rows<{ item: JsonText<T> | null; total: number | null }>(
    statement(pageCte(t, conditions, window), direction(window), total, live),
  );
  const items = rows.flatMap((r) => (r.item === null ? [] : [r.item]));
  return includeTotal ? { items, total: rows[0]?.total ?? 0 } : { items };
}
