/**
 * The table of AWS calls (infra/aws-calls.ts) against the code: each of our functions' bundles
 * (its module and everything it imports from the repository) sends exactly the SDK commands and
 * signs exactly the requests its row declares; a call the code makes that the table lacks fails.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AWS_CALLS } from '#infra/aws-calls.ts';
import { repoRoot } from '#infra/stage.ts';

/**
 * What one module sends: SDK commands (`new XCommand(`) and hand-signed requests (`SigV4:<service>`),
 * signed by the SDK's signer (`new SignatureV4({ service })`) or by hand (a credential scope
 * `…/<service>/aws4_request`).
 */
function sendsOf(source: string): string[] {
  const commands = [...source.matchAll(/new\s+(?:\w+\.)?(\w+Command)\s*\(/g)].map((m) => m[1] as string);
  const bySigner = [...source.matchAll(/new\s+SignatureV4\s*\(\s*\{[^}]*?service:\s*['"]([\w-]+)['"]/g)];
  const byScope = [...source.matchAll(/\/([a-z0-9-]+)\/aws4_request\b/g)];
  return [...commands, ...new Set([...bySigner, ...byScope].map((m) => `SigV4:${m[1]}`))];
}

/** The repository modules one module imports at run time (type-only imports leave nothing in a bundle). */
function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm),
    ...source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] as string);
  return specifiers.flatMap((specifier) => {
    const path = specifier.startsWith('#')
      ? join(repoRoot, specifier.slice(1))
      : specifier.startsWith('.')
        ? resolve(dirname(file), specifier)
        : undefined;
    return path && existsSync(path) ? [path] : [];
  });
}

function bundleOf(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of importsOf(file)) visit(next);
  };
  visit(join(repoRoot, entry));
  return [...seen];
}

const ours = AWS_CALLS.flatMap((row) => ('entry' in row.caller ? [{ entry: row.caller.entry, row }] : []));
const inCode = (sends: string) => /Command$|^SigV4:/.test(sends);

describe('the table of AWS calls against the code', () => {
  it.each(ours.map(({ entry, row }) => [entry, row] as const))(
    '%s sends exactly what its row declares',
    (entry, row) => {
      const bundle = bundleOf(entry);
      const found = new Set(bundle.flatMap((file) => sendsOf(readFileSync(file, 'utf8'))));
      const declared = new Set(row.calls.map((call) => call.sends).filter(inCode));
      expect([...found].filter((sends) => !declared.has(sends)).sort(), 'sent, not in the table').toEqual([]);
      expect([...declared].filter((sends) => !found.has(sends)).sort(), 'in the table, never sent').toEqual(
        [],
      );
    },
  );

  it('leaves no module that calls AWS outside every declared bundle', () => {
    const bundled = new Set(ours.flatMap(({ entry }) => bundleOf(entry)));
    const callers = ['functions', 'db'].flatMap((dir) =>
      readdirSync(join(repoRoot, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(repoRoot, dir, f))
        .filter((file) => sendsOf(readFileSync(file, 'utf8')).length > 0),
    );
    expect(callers.length).toBeGreaterThan(3);
    expect(callers.filter((file) => !bundled.has(file)).map((file) => relative(repoRoot, file))).toEqual([]);
  });

  it('finds what the code sends, however it is written', () => {
    expect(sendsOf('await client.send(new PutEventsCommand({ Entries }))')).toEqual(['PutEventsCommand']);
    expect(sendsOf("const s = new SignatureV4({ service: 'rds-db', region, credentials })")).toEqual([
      'SigV4:rds-db',
    ]);
    expect(sendsOf("const scope = [date, region, 'x'].join('/') + '/rds-db/aws4_request';")).toEqual([
      'SigV4:rds-db',
    ]);
  });
});
