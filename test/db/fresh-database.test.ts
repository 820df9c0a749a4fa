import { getTableName, is, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import * as schema from '#db/schema/index.ts';
import { freshDatabase } from '#test/helpers/database.ts';

// The tables db/schema declares, the one source of what the migrations must have made.
const declared = Object.values(schema)
  .filter((value) => is(value, PgTable))
  .map((table) => getTableName(table as PgTable))
  .sort();

describe('a fresh test database', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await freshDatabase();
  });
  afterAll(() => handle.close());

  it('has every table db/schema declares migrated, and each empty', async () => {
    const rows = rowsOf<{ table_name: string }>(
      await handle.db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
      ),
    );
    expect(rows.map((r) => r.table_name)).toEqual(declared);
    expect(declared).toContain('ledger_balances');
    for (const table of declared) {
      const count = rowsOf<{ n: number }>(
        await handle.db.execute(sql`select count(*)::int as n from ${sql.identifier(table)}`),
      );
      expect({ table, rows: count[0]?.n }).toEqual({ table, rows: 0 });
    }
  });
});
