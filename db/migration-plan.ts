import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { DatabaseHandle } from './client.ts';
import { defaultMigrationsFolder } from './migrate.ts';
import { rowsOf } from './queries/rows.ts';

/** A committed migration the database has not applied yet. */
export interface PendingMigration {
  readonly tag: string;
  readonly sql: string;
}

/** A statement of a pending migration that changes what existed before the run. */
export interface ChangingStatement {
  readonly tag: string;
  readonly statement: string;
}

interface Journal {
  readonly entries: readonly { readonly tag: string; readonly when: number }[];
}

export interface MigrationPlan {
  readonly pending: readonly PendingMigration[];
  /** No migration was ever applied: the database holds none of the project's tables yet. */
  readonly firstRun: boolean;
}

/**
 * What drizzle's migrator will apply, chosen as it chooses (drizzle-orm's pg dialect `migrate`):
 * every journal entry newer than the newest `created_at` in `drizzle.__drizzle_migrations`, or all
 * of them when that table does not exist yet (or is empty).
 */
export async function pendingMigrations(
  handle: DatabaseHandle,
  folder = defaultMigrationsFolder(),
): Promise<MigrationPlan> {
  const journal: Journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8'));
  const last = await lastApplied(handle);
  const pending = journal.entries
    .filter((entry) => last === undefined || last < entry.when)
    .map((entry) => ({ tag: entry.tag, sql: readFileSync(join(folder, `${entry.tag}.sql`), 'utf8') }));
  return { pending, firstRun: last === undefined };
}

async function lastApplied(handle: DatabaseHandle): Promise<number | undefined> {
  const [journal] = rowsOf<{ present: boolean }>(
    await handle.db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`),
  );
  if (!journal?.present) return undefined;
  const [row] = rowsOf<{ last: string | null }>(
    await handle.db.execute(sql`select max(created_at)::text as last from drizzle.__drizzle_migrations`),
  );
  return row?.last == null ? undefined : Number(row.last);
}

const IDENTIFIER = '(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)';
const NAME = String.raw`(${IDENTIFIER}(?:\s*\.\s*${IDENTIFIER})?)`;
const CREATES = new RegExp(
  String.raw`^create\s+(?:unlogged\s+)?(table|type|sequence)\s+(?:if\s+not\s+exists\s+)?${NAME}`,
  'i',
);
const CREATES_INDEX_OR_SCHEMA = /^create\s+(?:unique\s+)?(?:index|schema)\b/i;
const ALTERS = new RegExp(
  String.raw`^alter\s+(table|type|sequence)\s+(?:if\s+exists\s+)?(?:only\s+)?${NAME}`,
  'i',
);
const LEADING_COMMENT = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)+/;

/** `"public"."Agents"` and `public.agents` name different tables; unqualified is `public`. */
function qualified(kind: string, name: string): string {
  const parts = (name.match(new RegExp(IDENTIFIER, 'g')) ?? []).map((part) =>
    part.startsWith('"') ? part.slice(1, -1).replaceAll('""', '"') : part.toLowerCase(),
  );
  return `${kind.toLowerCase()} ${parts.length === 1 ? 'public' : parts[0]}.${parts.at(-1)}`;
}

/**
 * Each statement's head, cut at every `;` and with leading comments dropped. Naive on purpose: a
 * `;` inside a string or a function body makes extra pieces, which read as changes (below), so the
 * cut can only err towards a snapshot.
 */
const statementsOf = (text: string) =>
  text
    .split(';')
    .map((piece) => piece.replace(LEADING_COMMENT, '').trim())
    .filter(Boolean);

/**
 * The statements of `pending` that change tables or types that existed before the run: the rule
 * for taking a snapshot first (docs/deploying.md). Additive, and so no snapshot: `CREATE TABLE`,
 * `CREATE TYPE`, `CREATE SEQUENCE`, `CREATE [UNIQUE] INDEX`, `CREATE SCHEMA`, and `ALTER` of a
 * table, type or sequence created earlier in the same run (drizzle-kit adds a new table's foreign
 * keys that way). Everything else counts as a change: `ALTER`, `DROP`, `RENAME`, `TRUNCATE` of what
 * existed, `INSERT`/`UPDATE`/`DELETE`, `DO` blocks, and any statement this reading cannot place.
 */
export function changesToExisting(pending: readonly PendingMigration[]): ChangingStatement[] {
  const created = new Set<string>();
  const changes: ChangingStatement[] = [];
  for (const { tag, sql: text } of pending) {
    for (const statement of statementsOf(text)) {
      const creates = CREATES.exec(statement);
      if (creates) {
        created.add(qualified(creates[1] as string, creates[2] as string));
        continue;
      }
      if (CREATES_INDEX_OR_SCHEMA.test(statement)) continue;
      const alters = ALTERS.exec(statement);
      if (alters && created.has(qualified(alters[1] as string, alters[2] as string))) continue;
      changes.push({ tag, statement: statement.length > 200 ? `${statement.slice(0, 200)}…` : statement });
    }
  }
  return changes;
}
