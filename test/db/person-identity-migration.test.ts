import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { defaultMigrationsFolder } from '#db/migrate.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { createTenant } from '#test/helpers/tenants.ts';

// Migration 0008 makes email and phone unique among a workspace's live persons: run again on data
// written before it (its indexes dropped), it merges each duplicate into the oldest person first.
describe('migration 0008: one live person per email and per phone', () => {
  let handle: DatabaseHandle;
  const statements = readFileSync(`${defaultMigrationsFolder()}/0008_person_identity_unique.sql`, 'utf8')
    .split('--> statement-breakpoint')
    .map((s) => s.trim())
    .filter((s) => s !== '');

  beforeAll(async () => {
    handle = await freshDatabase();
  });
  afterAll(() => handle.close());

  it('merges duplicates into the oldest (what was merged into them too), then holds the rule', async () => {
    const { workspaceId: ws } = await createTenant(handle.db);
    const { workspaceId: other } = await createTenant(handle.db);
    // As 0007 left them: plain indexes.
    for (const column of ['email', 'phone']) {
      await handle.db.execute(sql.raw(`drop index persons_workspace_${column}`));
      await handle.db.execute(
        sql.raw(`create index persons_workspace_${column} on persons (workspace_id, ${column})`),
      );
    }
    const person = (id: string, at: string, email: string | null, phone: string | null, root = id, w = ws) =>
      handle.db.execute(sql`insert into persons (id, created_at, workspace_id, root_person_id, email, phone)
        values (${id}, ${at}::timestamptz, ${w}, ${root}, ${email}, ${phone})`);
    await person('a', '2026-01-01T00:00:00Z', 'e@example.com', null);
    await person('b', '2026-01-02T00:00:00Z', 'e@example.com', '+14155550100');
    await person('b2', '2026-01-02T00:00:01Z', 'old@example.com', null, 'b');
    await person('c', '2026-01-03T00:00:00Z', null, '+14155550100');
    await person('d', '2026-01-04T00:00:00Z', null, '+14155550199');
    await person('x', '2026-01-05T00:00:00Z', 'e@example.com', '+14155550100', 'x', other);

    for (const statement of statements) await handle.db.execute(sql.raw(statement));

    const rows = rowsOf<{ id: string; root: string; reason: string | null; merged: boolean }>(
      await handle.db.execute(sql`select id, root_person_id as root, merge_meta->>'reason' as reason,
        merged_at is not null as merged from persons where id in ('a', 'b', 'b2', 'c', 'd', 'x') order by id`),
    );
    expect(rows).toEqual([
      { id: 'a', root: 'a', reason: null, merged: false },
      { id: 'b', root: 'a', reason: 'duplicate email', merged: true },
      { id: 'b2', root: 'a', reason: null, merged: true },
      // b was no longer live when phones were compared: c keeps its phone.
      { id: 'c', root: 'c', reason: null, merged: false },
      { id: 'd', root: 'd', reason: null, merged: false },
      { id: 'x', root: 'x', reason: null, merged: false },
    ]);
    await expect(
      handle.db.execute(sql`insert into persons (id, workspace_id, root_person_id, email)
        values ('y', ${ws}, 'y', 'e@example.com')`),
    ).rejects.toThrow();
    // A merged-away person may keep the identifier.
    await handle.db.execute(sql`insert into persons (id, workspace_id, root_person_id, phone)
      values ('z', ${ws}, 'c', '+14155550100')`);
  });
});
