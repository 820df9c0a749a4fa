import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  imports: Record<string, string>;
  scripts: Record<string, string>;
};

// Exactly what `npm run check` runs, so this test follows any change to the command.
const command = pkg.scripts.check?.split('&&').find((part) => part.includes('depcruise'));
const args = (command ?? '').trim().split(/\s+/).slice(1);

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

/** dependency-cruiser run as `npm run check` runs it, from `cwd`, with the project's rules. */
function depcruise(cwd: string, extra: string[] = []) {
  const config = args.indexOf('--config');
  const withAbsoluteConfig = args.map((a, i) => (i === config + 1 ? join(root, a) : a));
  const bin = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  return spawnSync(process.execPath, [bin, ...withAbsoluteConfig, ...extra], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** The violations it finds (its JSON report, which always exits 0). */
function violationsIn(cwd: string): Violation[] {
  const run = depcruise(cwd, ['--output-type', 'json']);
  if (!run.stdout) throw new Error(`dependency-cruiser printed nothing: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** A tiny project with the same folders, aliases and node_modules, breaking each rule once. */
const wrongTree: Record<string, string> = {
  'contract/ok.ts': 'export const ok = 1;\n',
  'contract/orm.ts': "import { sql } from 'drizzle-orm';\nexport const s = sql;\n",
  'contract/up.ts': "import { x } from '#db/x.ts';\nexport const u = x;\n",
  'db/x.ts': "import { y } from '#functions/y.ts';\nexport const x = y;\n",
  'db/typed.ts': "import type { Y } from '../functions/y.ts';\nexport const t: Y = 1;\n",
  'db/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
  'db/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
  'functions/y.ts': "import { ok } from '#contract/ok.ts';\nexport type Y = number;\nexport const y = ok;\n",
  'functions/orm.ts': "import { eq } from 'drizzle-orm';\nexport const e = eq;\n",
  'functions/driver.ts': "import postgres from 'postgres';\nexport const p = postgres;\n",
  'functions/stack.ts': "import { i } from '#infra/i.ts';\nexport const s = i;\n",
  'functions/typo.ts': "import { m } from './missing.ts';\nexport const t = m;\n",
  'infra/i.ts': "import { k } from '#cli/k.ts';\nexport const i = k;\n",
  'infra/stage.ts': "import { s } from '#local-aws/s.ts';\nexport const t = s;\n",
  'infra/local/server.ts': "export const load = () => import('#local-aws/s.ts');\n",
  'functions/aws.ts': "import { s } from '../local-aws/s.ts';\nexport const a = s;\n",
  'local-aws/s.ts': "import { ok } from '#contract/ok.ts';\nexport const s = ok;\n",
  'local-aws/up.ts': "import { k } from '#cli/k.ts';\nexport const u = k;\n",
  'test/uses-aws.ts': "import { s } from '#local-aws/s.ts';\nexport const u = s;\n",
  'cli/k.ts': "import { z } from '../test/z.ts';\nexport const k = z;\n",
  'bench/ok.ts': "import { y } from '#functions/y.ts';\nexport const b = y;\n",
  'test/z.ts': 'export const z = 1;\n',
  'client/c.ts': "import { ok } from '../contract/ok.ts';\nexport const c = ok;\n",
};

describe('the import rules (.dependency-cruiser.cjs, run by npm run check)', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vaa-imports-'));
    for (const [path, text] of Object.entries(wrongTree)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', imports: pkg.imports }));
    writeFileSync(join(dir, 'tsconfig.json'), readFileSync(join(root, 'tsconfig.json')));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the command npm run check runs', () => {
    expect(command).toContain('--config .dependency-cruiser.cjs');
    expect(args).toEqual(
      expect.arrayContaining(['contract', 'db', 'functions', 'infra', 'local-aws', 'cli', 'client']),
    );
  });

  it('fails on a tree that breaks each rule, naming each wrong import', () => {
    const run = depcruise(dir);
    expect(run.status).not.toBe(0);
    expect(run.stdout).toContain('error db-imports-only-contract: db/x.ts → functions/y.ts');
    const found = violationsIn(dir).map(
      (v) =>
        `${v.rule.severity} ${v.rule.name}: ${v.from} → ${v.to.replace(/^.*node_modules\/([^/]+)\/.*$/, 'package $1')}`,
    );
    expect(found.sort()).toEqual(
      [
        'error contract-imports-nothing: contract/orm.ts → package drizzle-orm',
        'error contract-imports-nothing: contract/up.ts → db/x.ts',
        'error db-imports-only-contract: db/x.ts → functions/y.ts',
        'error db-imports-only-contract: db/typed.ts → functions/y.ts',
        'error no-cycles: db/a.ts → db/b.ts', // a cycle is reported once, at its first edge
        'error functions-through-the-data-layer: functions/orm.ts → package drizzle-orm',
        'error functions-through-the-data-layer: functions/driver.ts → package postgres',
        'error functions-below-infra-and-cli: functions/stack.ts → infra/i.ts',
        'error not-to-unresolvable: functions/typo.ts → ./missing.ts',
        'error infra-not-cli: infra/i.ts → cli/k.ts',
        'error product-not-local-aws: infra/stage.ts → local-aws/s.ts',
        'error product-not-local-aws: functions/aws.ts → local-aws/s.ts',
        'error local-aws-not-cli: local-aws/up.ts → cli/k.ts',
        'error cli-not-bench-or-test: cli/k.ts → test/z.ts',
        'error client-imports-nothing: client/c.ts → contract/ok.ts',
      ].sort(),
    );
  });

  it('passes on the project itself', () => {
    const run = depcruise(root);
    expect(run.stdout).toContain('no dependency violations found');
    expect(run.status).toBe(0);
  });
});
