import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
// Copied as the checks read it: no dependencies (linked instead), history or build output.
const SKIPPED = new Set(['node_modules', '.git', 'cdk.out', 'coverage']);

/** Runs a step of `npm run check` in `dir`; its exit code and output. */
async function step(dir: string, command: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await run(join(dir, 'node_modules/.bin', command), args, {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

function edit(dir: string, file: string, from: string, to: string) {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} holds no ${from}`);
  writeFileSync(path, text.replace(from, to));
}

// A copy of the tree, renamed in db/schema as a careless change would: `npm run check` must fail.
// It uses no database, so it runs once in CI: in the Postgres pass (and in any plain `npm test`).
describe.skipIf(process.env.TEST_DATABASE === 'pglite')(
  'a rename in db/schema fails `npm run check` (on a copy of the tree; skipped under TEST_DATABASE=pglite: no database used, CI runs it in its Postgres pass)',
  () => {
    let dir: string;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'vaa-rename-'));
      cpSync(ROOT, dir, { recursive: true, filter: (source) => !SKIPPED.has(source.slice(ROOT.length + 1)) });
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('the SQL names of a column (sessions.conversation_id) and a table (agents): migrations behind', async () => {
      // The copy as it is passes, so the failures below are the renames'.
      expect(await step(dir, 'tsx', 'cli/check-schema.ts')).toMatchObject({ code: 0 });

      edit(dir, 'db/schema/sessions.ts', "id('conversation_id')", "id('conversation_ref')");
      edit(dir, 'db/schema/agents.ts', "pgTable(\n  'agents',", "pgTable(\n  'agent_profiles',");
      const renamed = await step(dir, 'tsx', 'cli/check-schema.ts');
      expect(renamed.code).toBe(1);
      expect(renamed.output).toContain('tables.public.sessions.columns.conversation_ref');
      expect(renamed.output).toContain('tables.public.agent_profiles');

      expect(renamed.output).toContain('db/schema differs from db/migrations');
      // With a migration written for it, the statements still naming the old names fail the schema
      // safety net (test/db/statements.test.ts), which runs them on the migrated database.
    }, 120_000);

    it("a column's TypeScript name (sessions.conversationId): tsc", async () => {
      edit(dir, 'db/schema/sessions.ts', 'conversationId: id(', 'conversationRef: id(');
      // The project `npm run check` type-checks, narrowed to db/ (and what it imports) with the same
      // options: an error in this part is an error of the whole, at a fraction of its time.
      writeFileSync(
        join(dir, 'tsconfig.db.json'),
        JSON.stringify({ extends: './tsconfig.json', include: ['db'] }),
      );
      const checked = await step(dir, 'tsc', '--noEmit', '-p', 'tsconfig.db.json');
      expect(checked.code).not.toBe(0);
      expect(checked.output).toMatch(/error TS/);
      expect(checked.output).toContain('conversationId');
    }, 180_000);
  },
);
