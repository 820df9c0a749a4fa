/** postgres.js returns the rows array, PGlite `{ rows }`: one shape for callers. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
