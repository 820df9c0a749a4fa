import { createId } from '@paralleldrive/cuid2';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionList } from '#contract/schemas/session.ts';
import type { DatabaseHandle } from '#db/client.ts';
import { createApiKey } from '#db/queries/manage-api-keys.ts';
import { freshDatabase } from '#test/helpers/database.ts';
import { pageSessions } from '#test/helpers/pages.ts';
import { listStructures, type Structure } from '../../bench/bulk-load.ts';
import { countRows, SEEDED_TABLES, type SeededWorkspace, seedWorkspaces, shapeOf } from '../../bench/seed.ts';

const byName = (a: Structure, b: Structure) => `${a.table}.${a.name}`.localeCompare(`${b.table}.${b.name}`);

describe('the bench seeder, at a small size', () => {
  let handle: DatabaseHandle;
  let before: Structure[];
  let a: SeededWorkspace;
  let b: SeededWorkspace;

  beforeAll(async () => {
    handle = await freshDatabase();
    before = await listStructures(handle.db, SEEDED_TABLES);
    const principalId = createId();
    [a, b] = (await seedWorkspaces(handle.db, [
      { name: 'Bench A', tag: 'a', sessions: 120, principalId },
      { name: 'Bench B', tag: 'b', sessions: 95, principalId },
    ])) as [SeededWorkspace, SeededWorkspace];
  });
  afterAll(() => handle.close());

  it('fills each workspace with exactly the rows its shape promises', async () => {
    expect(shapeOf(120)).toEqual({
      sessions: 120,
      agents: 4,
      agentVersions: 12,
      persons: 24,
      conversations: 30,
      ledgerEntries: 120 - 24 + 4 + 1 + 1200,
    });
    expect(await countRows(handle.db, a.workspaceId)).toEqual(shapeOf(120));
    expect(await countRows(handle.db, b.workspaceId)).toEqual(shapeOf(95));
    expect(a.shape).toEqual(shapeOf(120));
  });

  it('puts back every key, constraint and index it dropped for the load', async () => {
    const after = await listStructures(handle.db, SEEDED_TABLES);
    expect(after.length).toBeGreaterThan(0);
    expect([...after].sort(byName)).toEqual([...before].sort(byName));
  });

  it('makes sessions the API lists as valid Sessions of that workspace only, newest first', async () => {
    // The API's statement runs for a live key of the workspace (the seeder makes none).
    const key = await createApiKey(handle.db, { workspaceId: a.workspaceId, name: 'reader', scopes: [] });
    const rows = await pageSessions(
      handle.sql,
      { workspaceId: a.workspaceId, keyId: key.id },
      { limit: 250, offset: 0 },
    );
    expect(rows).toHaveLength(120);
    const sessions = v.parse(SessionList, rows);
    for (const s of sessions) {
      expect(s.workspaceId).toBe(a.workspaceId);
      expect([s.agent.workspaceId, s.person.workspaceId, s.conversation.workspaceId]).toEqual([
        a.workspaceId,
        a.workspaceId,
        a.workspaceId,
      ]);
      expect(s.agent.version.id).toBe(s.agentVersionId);
      expect(s.conversation.personId).toBe(s.personId);
      expect(s.ledger?.sessionId ?? null).toBe(s.status === 'COMPLETED' ? s.id : null);
    }
    const order = sessions.map((s) => `${s.createdAt} ${s.id}`);
    expect(order).toEqual([...order].sort().reverse());
  });
});
