import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ISOLATED } from '../../vitest.config.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What makes a test file's modules its own business: it changes or reads state a module keeps. */
const NEEDS_ISOLATION: [string, RegExp][] = [
  [
    'sets process.env',
    /process\.env(\.\w+|\[[^\]]+\])\s*(=[^=]|\?\?=)|delete process\.env|Object\.assign\(process\.env|process\.env = /,
  ],
  ['spies on or stubs a global', /\bvi\.(spyOn|mock|doMock|stubEnv|stubGlobal|useFakeTimers)\(/],
  [
    'runs a deployed entry point',
    /import \{[^}]*\bhandler\b[^}]*\} from '#functions\/|await import\('#functions\//,
  ],
];

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(root, path)] : [];
  });

describe('test isolation (vitest.config.ts)', () => {
  it('gives modules of its own to every file outside test/infra that sets the environment, stubs, or runs an entry point', () => {
    const missing = testFiles(join(root, 'test'))
      .filter((file) => !file.startsWith('test/infra/'))
      .flatMap((file) => {
        const text = readFileSync(join(root, file), 'utf8');
        const why = NEEDS_ISOLATION.filter(([, pattern]) => pattern.test(text)).map(([reason]) => reason);
        return why.length && !ISOLATED.includes(file) ? [`${file}: ${why.join(', ')}`] : [];
      });
    expect(missing).toEqual([]);
    // And none listed needlessly, or gone.
    for (const file of ISOLATED) {
      const text = readFileSync(join(root, file), 'utf8');
      expect(
        NEEDS_ISOLATION.some(([, pattern]) => pattern.test(text)),
        file,
      ).toBe(true);
    }
  });
});
