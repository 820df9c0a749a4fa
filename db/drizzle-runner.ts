import { sql as drizzleSql, type SQL } from 'drizzle-orm';
import type { Database, SqlRunner, Statement } from './database.ts';
import { rowsOf } from './queries/rows.ts';

/** A statement of db/queries (sql-template-tag) as Drizzle's: the same text, its values as parameters. */
function asDrizzle(statement: Statement): SQL {
  const chunks: SQL[] = [];
  statement.strings.forEach((text, i) => {
    chunks.push(drizzleSql.raw(text));
    if (i < statement.values.length) chunks.push(drizzleSql`${drizzleSql.param(statement.values[i])}`);
  });
  return drizzleSql.join(chunks);
}

/**
 * The API's statements on a tool's Drizzle database or transaction: what lets the demo seed run the
 * write path's queries inside its own transaction, beside its Drizzle inserts.
 */
export function drizzleRunner(db: Database, inTransaction = false): SqlRunner {
  return {
    inTransaction,
    rows: async <T>(statement: Statement) => rowsOf<T>(await db.execute(asDrizzle(statement))),
    transaction: (work) => db.transaction((tx) => work(drizzleRunner(tx, true))),
  };
}
