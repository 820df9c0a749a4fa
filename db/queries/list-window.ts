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

/** `column in (…)`, one parameter per value. */
export const isIn = (column: Sql, values: readonly unknown[]) =>
  sql`${column} in (${join(values as unknown[])})`;

/** The list's direction as SQL: newest first unless `asc`. */
export const direction = (window: ListWindow) => raw(window.order === 'asc' ? 'asc' : 'desc');

/**
 * The window's conditions on the listed table past the cursor position: `(created_at, id)` after
 * it in the list's direction, a range on the list index; none without a cursor.
 */
export const pastCursor = ({ after, order }: ListWindow): Sql[] =>
  after
    ? [
        order === 'asc'
          ? sql`(created_at, id) > (${after.createdAt}::timestamptz, ${after.id})`
          : sql`(created_at, id) < (${after.createdAt}::timestamptz, ${after.id})`,
      ]
    : [];

/**
 * The `page` CTE's bounds: `limit + 1` rows, so the caller knows whether another page follows;
 * `offset` skips index entries only (late row lookup), and a cursor's page starts at its position.
 */
export const limitOffset = (window: ListWindow) =>
  sql`limit ${window.limit + 1} offset ${window.after ? 0 : window.offset}`;

/** The page's order and bounds on the list index, `(created_at, id)` in the list's direction. */
export const pageBounds = (window: ListWindow) => {
  const dir = direction(window);
  return sql`order by created_at ${dir}, id ${dir} ${limitOffset(window)}`;
};

/**
 * Whether the page's rows are read straight off the list's index (a first page, or a cursor's):
 * past an `offset` a list skips index entries only, then reads just the page's rows by primary
 * key (late row lookup).
 */
export const readsOffIndex = (window: ListWindow) => window.after !== undefined || window.offset === 0;

/** A page's items, and how many rows match in all when it was asked for. */
export interface Page<T> {
  items: JsonText<T>[];
  total?: number;
}

/**
 * Runs a page statement: its rows carry `item` (null for the one row of an empty page) and `total`
 * (the count of matching rows, counted by the same statement and so in the same snapshot as the
 * items; as two statements, writes between them made the count disagree with the page).
 */
export async function runPage<T>(runner: SqlRunner, statement: Sql, includeTotal: boolean): Promise<Page<T>> {
  const rows = await runner.rows<{ item: JsonText<T> | null; total: number | null }>(statement);
  const items = rows.flatMap((r) => (r.item === null ? [] : [r.item]));
  return includeTotal ? { items, total: rows[0]?.total ?? 0 } : { items };
}
