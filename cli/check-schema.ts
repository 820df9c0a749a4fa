import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { generateDrizzleJson } from 'drizzle-kit/api';
import * as schema from '#db/schema/index.ts';

/**
 * Part of `npm run check`, writing nothing: fails while db/schema differs from the committed
 * migrations: the snapshot drizzle-kit takes of the schema now must equal the last
 * committed one, which is what `drizzle-kit generate` diffs against (equal: "No schema changes").
 * The snapshots are compared rather than handed to drizzle-kit's `generateMigration`, which asks
 * on a terminal whether a vanished and a new table or column are a rename.
 */
const MIGRATIONS = 'db/migrations';

/** Where two JSON values differ, as paths (`tables.public.sessions.columns`…). */
function differences(a: unknown, b: unknown, path: string[] = []): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return [path.join('.')];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((key) =>
    differences((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], [...path, key]),
  );
}

/** What of the schema's snapshot differs from the last migration's (empty: nothing to migrate). */
export function schemaDrift(): string[] {
  const journal = JSON.parse(readFileSync(`${MIGRATIONS}/meta/_journal.json`, 'utf8')) as {
    entries: { idx: number }[];
  };
  const last = journal.entries.at(-1);
  if (!last) throw new Error('no migration in the journal');
  const file = `${MIGRATIONS}/meta/${String(last.idx).padStart(4, '0')}_snapshot.json`;
  const { id: _id, prevId: _prevId, ...committed } = JSON.parse(readFileSync(file, 'utf8'));
  const { id: _, prevId: __, ...now } = JSON.parse(JSON.stringify(generateDrizzleJson(schema)));
  return differences(committed, now);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const drift = schemaDrift();
  if (drift.length > 0) {
    console.error('db/schema differs from db/migrations (`npm run db:generate` writes a migration):');
    for (const path of drift.slice(0, 20)) console.error(`  ${path}`);
  }
  if (drift.length > 0) process.exit(1);
  console.log('the migrations match db/schema');
}
