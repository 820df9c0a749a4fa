/** A listed field: its column, its name in the answer, and whether it is a timestamp. */
export type Column = readonly [column: string, field: string, timestamp: boolean];

/**
 * A row as `row_to_json` wrote it (keyed by column; timestamps ISO 8601 with the session's offset
 * and microseconds) as the API answers it: the listed fields in their order, timestamps in UTC with
 * milliseconds, cut as `to_char`'s `MS` cuts them in the lists' items (`isoTimestamp`,
 * db/projections/json.ts), so an agent reads the same in a create's answer and in a list.
 */
export function fromRowJson(
  row: Record<string, unknown>,
  columns: readonly Column[],
): Record<string, unknown> {
  const answer: Record<string, unknown> = {};
  for (const [column, field, timestamp] of columns) {
    const value = row[column] ?? null;
    answer[field] = timestamp && typeof value === 'string' ? new Date(value).toISOString() : value;
  }
  return answer;
}
