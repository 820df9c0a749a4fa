import sql, { type Sql } from 'sql-template-tag';

/**
 * When a write happens, as SQL: the transaction's `now()` for the API (the statement's text is then
 * exactly as without a clock); a given instant for the demo seed, which replays a month of sessions
 * through the very statements the API runs (db/seed/demo-workspace.ts).
 */
export const clock = (at?: string): Sql => (at === undefined ? sql`now()` : sql`${at}::timestamptz`);
