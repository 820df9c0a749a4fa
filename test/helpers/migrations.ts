import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A migrations folder drizzle accepts, with one migration (`tag`) made of `statements`, newer than
 * the committed ones: on a migrated test database it is the one pending migration.
 */
export function migrationsFolder(statements: string[], tag = '9000_probe'): string {
  const dir = mkdtempSync(join(tmpdir(), 'vaa-migrations-'));
  mkdirSync(join(dir, 'meta'));
  const entry = { idx: 0, version: '7', when: Date.now() + 60_000, tag, breakpoints: true };
  writeFileSync(
    join(dir, 'meta', '_journal.json'),
    JSON.stringify({ version: '7', dialect: 'postgresql', entries: [entry] }),
  );
  writeFileSync(join(dir, `${tag}.sql`), statements.join('\n--> statement-breakpoint\n'));
  return dir;
}
