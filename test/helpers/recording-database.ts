import type { DatabaseClient, SqlRunner, Statement } from '#db/database.ts';

/**
 * The database as given, recording every statement run through it (by the authorizer and the
 * handlers alike, transactions included), in order. Nothing is changed on the way.
 */
export function recordStatements(database: DatabaseClient) {
  const statements: Statement[] = [];
  const wrap = (runner: SqlRunner): SqlRunner => ({
    rows: (statement) => {
      statements.push(statement);
      return runner.rows(statement);
    },
    transaction: (work) => runner.transaction((tx) => work(wrap(tx))),
    get inTransaction() {
      return runner.inTransaction;
    },
  });
  const client: DatabaseClient = {
    get config() {
      return database.config;
    },
    get sql() {
      return wrap(database.sql);
    },
    get driver() {
      return database.driver;
    },
    run: (work, options) => database.run((sql) => work(wrap(sql)), options),
    close: () => database.close(),
  };
  // The authorizer's lookup (db/queries/api-keys.ts `authenticate`) is the statement that reads a token's hash.
  const lookups = () => statements.filter((s) => s.sql.includes('token_hash')).length;
  return { client, statements, lookups };
}
