import { type Column as DrizzleColumn, getTableColumns, getTableName, type SQL, sql } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import type { Column } from '../queries/row-json.ts';
import { sqlName } from './names.ts';

/** A table's SQL name, as the statement writes it. */
export const tableOf = (table: PgTable) => sql.raw(sqlName(getTableName(table)));
/** A column's SQL name, read through `alias` when given. */
export const columnOf = (column: DrizzleColumn, alias?: string) =>
  sql.raw(alias === undefined ? sqlName(column.name) : `${alias}.${sqlName(column.name)}`);

/** Postgres's text form of timestamptz is not ISO 8601; this is, in UTC with milliseconds. */
export const isoTimestamp = (expr: SQL) =>
  sql`to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// Written without a backslash (the generated module holds the statement in a template literal):
// chr(92) is one, folded to a constant when the statement is planned. A string, else `:` or `,`
// followed by the space jsonb puts after it.
const BACKSLASHES = `chr(92) || chr(92)`;
const JSON_TOKEN = `'("(?:[^"' || ${BACKSLASHES} || ']|' || ${BACKSLASHES} || '.)*")|([:,]) '`;
const KEEP_STRING_OR_MARK = `chr(92) || '1' || chr(92) || '2'`;

/**
 * A jsonb value as compact JSON, as the rest of an answer (and every answer built in the function)
 * is written: jsonb's text form puts a space after each `:` and `,`; dropped here outside strings.
 */
export const compactJson = (expr: SQL) =>
  sql`regexp_replace(${expr}::text, ${sql.raw(JSON_TOKEN)}, ${sql.raw(KEEP_STRING_OR_MARK)}, 'g')::json`;

/** A column of `T` by its TypeScript property name (the API's field name). */
export type FieldOf<T extends PgTable> = keyof T['_']['columns'] & string;

/**
 * The JSON object of the listed `fields` of `table` as read through `alias` (a table alias or a CTE
 * returning its rows), keyed by the TypeScript property names, i.e. the API's field names, then
 * the `embedded` objects, one member a line at `indent`. Only what is listed: a column added to the
 * table reaches no answer until its projection (and the response schema) name it. Building the JSON
 * in the statement keeps each list to one round trip with its embedded objects. `row_to_json` of a
 * one-row select rather than `json_build_object`: the same document without the spaces around each
 * colon, and cheaper to build (docs/performance.md).
 */
export function jsonOf<T extends PgTable>(
  table: T,
  alias: string,
  fields: readonly FieldOf<T>[],
  embedded: Record<string, SQL> = {},
  indent = '',
): SQL {
  const columns = getTableColumns(table);
  const pairs: [string, SQL][] = columnsOf(table, fields).map(([column, field, timestamp]) => {
    const ref = sql.raw(`${alias}.${sqlName(column)}`);
    if (columns[field]?.columnType === 'PgJsonb') return [field, compactJson(ref)];
    return [field, timestamp ? isoTimestamp(ref) : ref];
  });
  pairs.push(...Object.entries(embedded));
  const line = `\n${indent}  `;
  const members = sql.join(
    pairs.map(([key, value]) => sql`${value} as ${sql.raw(sqlName(key))}`),
    sql.raw(`,${line}`),
  );
  return sql`(select row_to_json(j) from (select${sql.raw(line)}${members}${sql.raw(`\n${indent}`)}) j)`;
}

/** The listed `fields` of `table` as `[column, field, timestamp]`, for `fromRowJson` (db/queries/row-json.ts). */
export function columnsOf<T extends PgTable>(table: T, fields: readonly FieldOf<T>[]): Column[] {
  const columns = getTableColumns(table);
  return fields.map((field) => {
    const column = columns[field];
    if (!column) throw new Error(`no column ${field}`);
    return [column.name, field, column.columnType === 'PgTimestampString'];
  });
}

const dialect = new PgDialect();

/** A fragment without parameters as SQL text. */
export function textOf(fragment: SQL): string {
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  if (params.length > 0) throw new Error('textOf() takes fragments without parameters');
  return text;
}
