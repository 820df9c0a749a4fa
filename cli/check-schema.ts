import { readFileSync } from 'node:fs';
import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import * as schema from '#db/schema/index.ts';
import { GENERATED } from './projections.ts';

/**
 * Part of `npm run check`, writing nothing: fails while a file `npm run db:generate` writes is stale
 * (the statements' names and SQL rendered from db/schema) or while db/schema differs from the
 * committed migrations (`drizzle-kit generate` would write a migration: its API is given the last
 * committed snapshot and the schema as it is now).
 */
const MIGRATIONS = 'db/migrations';

export function staleFiles(): string[] {
  return Object.entries(GENERATED).flatMap(([path, render]) =>
    readFileSync(path, 'utf8') === render() ? [] : [path],
  );
}

export async function pendingMigration(): Promise<string[]> {
  const journal = JSON.parse(readFileSync(`${MIGRATIONS}/meta/_journal.json`, 'utf8')) as {
    entries: { idx: number }[];
  };
  const last = journal.entries.at(-1);
  if (!last) throw new Error('no migration in the journal');
  const file = `${MIGRATIONS}/meta/${String(last.idx).padStart(4, '0')}_snapshot.json`;
  const previous = JSON.parse(readFileSync(file, 'utf8'));
  return generateMigration(previous, generateDrizzleJson(schema, previous.id));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const stale = staleFiles();
  const pending = await pendingMigration();
  for (const path of stale) console.error(`stale: ${path} (run \`npm run db:generate\`)`);
  if (pending.length > 0) {
    console.error('db/schema differs from db/migrations; `npm run db:generate` would add a migration:');
    for (const statement of pending) console.error(`  ${statement}`);
  }
  if (stale.length > 0 || pending.length > 0) process.exit(1);
  console.log('generated files and migrations match db/schema');
}
