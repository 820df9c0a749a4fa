import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

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
export function afterPosition(
  columns: { createdAt: PgColumn; id: PgColumn },
  window: ListWindow,
): SQL | undefined {
  if (!window.after) return undefined;
  const op = sql.raw(window.order === 'asc' ? '>' : '<');
  return sql`(${columns.createdAt}, ${columns.id}) ${op} (${window.after.createdAt}::timestamptz, ${window.after.id})`;
}

/** ORDER BY for the list's direction, on any alias of (created_at, id). */
export function listOrder(createdAt: SQL, id: SQL, window: ListWindow): SQL {
  const dir = sql.raw(window.order === 'asc' ? 'asc' : 'desc');
  return sql`${createdAt} ${dir}, ${id} ${dir}`;
}

/** `limit + 1` rows, so the caller can tell whether another page follows. */
export const limitOffset = (window: ListWindow) =>
  sql`limit ${window.limit + 1} offset ${window.after ? 0 : window.offset}`;

/** AND of the conditions that are set. */
export const allOf = (conditions: (SQL | undefined)[]) =>
  sql.join(
    conditions.filter((c): c is SQL => c !== undefined),
    sql` and `,
  );
