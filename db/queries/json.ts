import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';

/** Postgres's text form of timestamptz is not ISO 8601; this is, in UTC with milliseconds. */
export const isoTimestamp = (expr: SQL) =>
  sql`to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * `json_build_object(...)` of every column of `table` as read through `alias` (a table alias or a
 * CTE returning its rows), keyed by the TypeScript property names, i.e. the API's field names.
 * Building the JSON in the statement keeps each list to one round trip with its embedded objects.
 */
export function jsonOf(table: PgTable, alias: string, embedded: Record<string, SQL> = {}): SQL {
  const fields: [string, SQL][] = Object.entries(getTableColumns(table)).map(([key, column]) => {
    const ref = sql`${sql.identifier(alias)}.${sql.identifier(column.name)}`;
    return [key, column.columnType === 'PgTimestampString' ? isoTimestamp(ref) : ref];
  });
  fields.push(...Object.entries(embedded));
  // Keys are our own property names ([A-Za-z]+), safe to inline as literals.
  return sql`json_build_object(${sql.join(
    fields.map(([key, value]) => sql`${sql.raw(`'${key}'`)}, ${value}`),
    sql`, `,
  )})`;
}

const dialect = new PgDialect();

/**
 * A fragment without parameters, rendered to SQL text once at module load. The JSON projections
 * are the same text on every request; building them per request (hundreds of drizzle nodes) was
 * the largest single cost in the API's process (see docs/performance.md).
 */
export function rendered(fragment: SQL): SQL {
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  if (params.length > 0) throw new Error('rendered() takes fragments without parameters');
  return sql.raw(text);
}
