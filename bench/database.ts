import { createId } from '@paralleldrive/cuid2';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { type DatabaseHandle, openDatabase } from '#db/client.ts';
import { migrate } from '#db/migrate.ts';
import { rowsOf } from '#db/queries/rows.ts';
import { withConstraintsRebuilt } from './bulk-load.ts';
import { countRows, type SeededWorkspace, type Shape, seedWorkspaces, shapeOf } from './seed.ts';

/** The two workspaces: A is measured, B is there so every query has to filter by workspace. */
const WORKSPACES = [
  { name: 'Bench workspace A', tag: 'a' },
  { name: 'Bench workspace B', tag: 'b' },
] as const;

/** Seeding and VACUUM of a million rows outlast the API's 7 s request deadline by far. */
const LONG_MS = 60 * 60_000;

export interface BenchDatabase {
  url: string;
  handle: DatabaseHandle;
  /** Workspace A, the one the API key belongs to. */
  measured: SeededWorkspace;
  other: SeededWorkspace;
  /** Milliseconds spent seeding, or null when an existing seed was reused. */
  seededMs: number | null;
}

export const serverUrlFromEnv = () => process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function databaseUrl(serverUrl: string, name: string) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The seeded workspaces when both hold exactly the expected rows; undefined otherwise. */
async function existingSeed(handle: DatabaseHandle, sessions: number) {
  const expected = shapeOf(sessions);
  const found: SeededWorkspace[] = [];
  for (const { name } of WORKSPACES) {
    const rows = rowsOf<{ id: string }>(
      await handle.db.execute(sql`select id from workspaces where name = ${name}`),
    );
    if (rows.length !== 1 || !rows[0]) return undefined;
    const shape = await countRows(handle.db, rows[0].id);
    // Agents created by an interrupted run would change the counts: reseed rather than guess.
    const same = Object.entries(expected).every(([key, count]) => shape[key as keyof Shape] === count);
    if (!same) return undefined;
    found.push({ workspaceId: rows[0].id, name, shape });
  }
  return found as [SeededWorkspace, SeededWorkspace];
}

/**
 * A dedicated database on the server, migrated with the project's migrate() and seeded with two
 * workspaces of `sessions` sessions each; reused as is when it already holds exactly that.
 */
export async function ensureBenchDatabase(
  serverUrl: string,
  name: string,
  sessions: number,
  log: (line: string) => void,
): Promise<BenchDatabase> {
  const url = databaseUrl(serverUrl, name);
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    const exists = await admin`select 1 from pg_database where datname = ${name}`;
    if (exists.length === 0) await admin.unsafe(`create database "${name}"`);
    let handle = await openDatabase({ kind: 'postgres', url, poolMax: 1, requestTimeoutMs: LONG_MS });
    await migrate(handle);
    const reused = await existingSeed(handle, sessions);
    if (reused) {
      log(`database ${name}: reusing the seed (2 × ${sessions} sessions)`);
      return { url, handle, measured: reused[0], other: reused[1], seededMs: null };
    }

    log(`database ${name}: seeding 2 × ${sessions} sessions …`);
    await handle.close();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.unsafe(`create database "${name}"`);
    handle = await openDatabase({ kind: 'postgres', url, poolMax: 1, requestTimeoutMs: LONG_MS });
    await migrate(handle);
    const started = performance.now();
    const principalId = createId();
    const [measured, other] = await seedWorkspaces(
      handle.db,
      WORKSPACES.map((w) => ({ ...w, sessions, principalId })),
    );
    if (!measured || !other) throw new Error('seeding returned no workspaces');
    // Sets the visibility map (index-only scans, as autovacuum would give a live table) and statistics.
    await handle.db.execute(sql`vacuum (analyze)`);
    const seededMs = performance.now() - started;
    log(`database ${name}: seeded in ${(seededMs / 1000).toFixed(1)} s`);
    return { url, handle, measured, other, seededMs };
  } finally {
    await admin.end();
  }
}

/**
 * Deletes the agents a run created, so the next run finds the seed as it was. Those two tables'
 * foreign keys are dropped and re-validated around the delete: one join per key instead of an
 * index probe per deleted row (chosen before migration 0002 indexed those keys; not re-measured since).
 */
export async function removeAgentsCreatedBy(db: BenchDatabase, principalId: string) {
  const ws = db.measured.workspaceId;
  // The run's own sessions (the heartbeat's) with the conversation and person they made, and the
  // events its writes put in the outbox (the seed writes none).
  await db.handle.db.execute(sql`
    with gone as (
      delete from sessions where workspace_id = ${ws}
        and agent_id in (select id from agents where workspace_id = ${ws} and created_by = ${principalId})
      returning conversation_id, person_id
    ), conversation as (
      delete from conversations where id in (select conversation_id from gone)
    )
    delete from persons where id in (select person_id from gone)`);
  await db.handle.db.execute(sql`delete from events where workspace_id = ${ws}`);
  await withConstraintsRebuilt(
    db.handle.db,
    ['sessions', 'ledger_entries'],
    (tx) =>
      tx.execute(
        sql`delete from agents where workspace_id = ${db.measured.workspaceId} and created_by = ${principalId}`,
      ),
    ['f'],
  );
  // Thousands of dead rows would otherwise slow the next run's GET /agents until autovacuum came by.
  await db.handle.db.execute(sql`vacuum (analyze) agents, agent_versions, agent_changes`);
}
