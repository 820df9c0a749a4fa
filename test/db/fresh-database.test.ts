import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { freshDatabase } from '#test/helpers/database.ts';

describe('a fresh test database', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await freshDatabase();
  });
  afterAll(() => handle.close());

  it('has every table migrated and empty', async () => {
    const rows = rowsOf<{ table_name: string }>(
      await handle.db.execute(
        sql`select table_name from information_schema.tables where table_schema = 'public' order by 1`,
      ),
    );
    expect(rows.map((r) => r.table_name)).toEqual([
      'agent_changes',
      'agent_versions',
      'agents',
      'api_keys',
      'conversations',
      'events',
      'idempotency_keys',
      'ledger_entries',
      'persons',
      'sessions',
      'themes',
      'workspaces',
    ]);
    const count = rowsOf<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from agents`));
    expect(count[0]?.n).toBe(0);
  });
});
