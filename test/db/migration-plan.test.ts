import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { defaultMigrationsFolder, migrate } from '#db/migrate.ts';
import { changesToExisting, type PendingMigration, pendingMigrations } from '#db/migration-plan.ts';
import { emptyDatabase } from '#test/helpers/database.ts';

const committed = defaultMigrationsFolder();
const tags = JSON.parse(readFileSync(join(committed, 'meta', '_journal.json'), 'utf8')).entries.map(
  (e: { tag: string }) => e.tag,
) as string[];

/** The committed migrations as an older release had them: the first `count` only. */
function firstMigrations(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'vaa-migrations-'));
  cpSync(committed, dir, { recursive: true });
  const journalFile = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, count) }));
  return dir;
}

describe('the migrations a deploy will apply, and whether they change existing tables', () => {
  let database: DatabaseHandle | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it('on an empty database: every committed migration, a first run', async () => {
    database = await emptyDatabase();
    const { pending, firstRun } = await pendingMigrations(database);
    expect(pending.map((m) => m.tag)).toEqual(tags);
    expect(firstRun).toBe(true);
    // Up to 0003 none changes a table that existed before: 0003 alters the `workspaces` 0000 created.
    expect(changesToExisting(pending.slice(0, 4))).toEqual([]);
  });

  it('on a database at 0002: from 0003 on, whose ALTER TABLE of an existing table is a change', async () => {
    database = await emptyDatabase();
    const at = tags.indexOf('0003_workspace_tier');
    await migrate(database, firstMigrations(at));
    const { pending, firstRun } = await pendingMigrations(database);
    expect(pending.map((m) => m.tag)).toEqual(tags.slice(at));
    expect(firstRun).toBe(false);
    expect(changesToExisting(pending)[0]).toEqual({
      tag: '0003_workspace_tier',
      statement: `ALTER TABLE "workspaces" ADD COLUMN "tier" "workspace_tier" DEFAULT 'standard' NOT NULL`,
    });
  });

  it('on an up-to-date database: nothing', async () => {
    database = await emptyDatabase();
    await migrate(database);
    expect(await pendingMigrations(database)).toEqual({ pending: [], firstRun: false });
  });
});

describe('the rule: additive statements need no snapshot, changes to what existed do', () => {
  const changes = (...statements: string[]) =>
    changesToExisting([
      { tag: '9000_probe', sql: statements.join(';\n--> statement-breakpoint\n') } satisfies PendingMigration,
    ]).map((c) => c.statement);

  it('reads new tables, types, sequences, schemas, indexes, and alterations of what the run created, as additive', () => {
    expect(
      changes(
        'CREATE TYPE "public"."mood" AS ENUM(\'a\', \'b\')',
        'CREATE TABLE IF NOT EXISTS "notes" ("id" varchar(24) PRIMARY KEY, "mood" "mood")',
        'create unlogged table Scratch (id int)',
        'CREATE SEQUENCE "public"."note_seq"',
        'CREATE SCHEMA "audit"',
        'CREATE TABLE "audit"."entries" ("id" int)',
        'ALTER TABLE "notes" ADD CONSTRAINT "notes_fk" FOREIGN KEY ("id") REFERENCES "public"."workspaces"("id")',
        'ALTER TABLE public.scratch ADD COLUMN x int',
        'alter table only "audit"."entries" add column at timestamptz',
        'ALTER TYPE "mood" ADD VALUE \'c\'',
        'ALTER SEQUENCE note_seq RESTART',
        '-- a comment first\nCREATE UNIQUE INDEX IF NOT EXISTS "agents_name" ON "agents" USING btree ("name")',
        '/* another */ CREATE INDEX CONCURRENTLY "x" ON "sessions" ("id")',
      ),
    ).toEqual([]);
  });

  it('reads ALTER, DROP, RENAME and TRUNCATE of existing objects, data changes and anything unreadable as changes', () => {
    const statements = [
      'ALTER TABLE "workspaces" ADD COLUMN "x" int',
      'ALTER TABLE "Notes" ADD COLUMN "x" int',
      'ALTER TYPE "public"."workspace_tier" ADD VALUE \'enterprise\'',
      'DROP INDEX "sessions_agent_version"',
      'DROP TABLE "notes"',
      'ALTER TABLE "agents" RENAME COLUMN "name" TO "title"',
      'TRUNCATE "idempotency_keys"',
      'UPDATE "agents" SET "status" = \'DRAFT\'',
      'INSERT INTO "themes" ("id") VALUES (\'x\')',
      'COMMENT ON TABLE "agents" IS \'x\'',
    ];
    // `notes` is created first: its own ALTER is additive, `"Notes"` (another name) is not. A DO
    // block is a change whatever it holds (cut in two at its inner `;`, both pieces are).
    expect(
      changes('CREATE TABLE notes (id int)', ...statements, 'DO $$ BEGIN CREATE TABLE t (id int); END $$'),
    ).toEqual([...statements, 'DO $$ BEGIN CREATE TABLE t (id int)', 'END $$']);
  });

  it('errs towards a snapshot where a string hides a semicolon', () => {
    expect(changes(`CREATE TABLE "t" ("a" text DEFAULT 'x; DROP TABLE agents')`)).toEqual([
      `DROP TABLE agents')`,
    ]);
  });
});
