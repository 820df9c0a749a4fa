import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizer, routeList } from '#contract/routes.ts';
import { BUNDLE_FILE, EXTERNAL_MODULES } from '#infra/constructs/lambda.ts';
import { allResourcesOf, logicalId, type Synthesised, synthesise } from './synth.ts';

/** Each function's bundle directory in the cloud assembly, found through its code's S3 key. */
function bundleDirs(synth: Synthesised): Map<string, string> {
  const resources = allResourcesOf(synth.stack);
  const { functions, migrations } = synth.stack;
  const named = [
    ...[...functions.functionByRoute].map(([route, fn]) => [route.name, fn] as const),
    [authorizer.name, functions.authorizerFunction] as const,
    ['admin', functions.admin] as const,
    ['migrate', migrations.function] as const,
  ];
  return new Map(
    named.map(([name, fn]) => {
      const key: string = resources[logicalId(synth.stack, fn)]?.Properties.Code.S3Key;
      return [name, join(synth.outdir, `asset.${key.replace(/\.zip$/, '')}`)];
    }),
  );
}

/**
 * Loads a bundle in a fresh Node process as Lambda's init does (`require`, an `index.js` with no
 * `"type": "module"` beside it), with no database settings; `before` runs first, `call` after.
 */
function importInNode(file: string, call?: string, env: Record<string, string> = {}, before = ''): string {
  const script = `${before}
const m = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(file)});
if (typeof m.handler !== 'function') throw new Error('no handler export');
${call ?? ''}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('the bundles a real synth builds with the local esbuild', () => {
  let synth: Synthesised;
  let dirs: Map<string, string>;
  let maps: string;
  beforeAll(() => {
    maps = mkdtempSync(join(tmpdir(), 'vaa-sourcemaps-'));
    process.env.SOURCE_MAPS_DIR = maps;
    try {
      synth = synthesise('prod', { bundle: true });
    } finally {
      delete process.env.SOURCE_MAPS_DIR;
    }
    dirs = bundleDirs(synth);
  });

  it('keep each source map out of the zip and the runtime path, stored beside the build instead', () => {
    const { functions, migrations } = synth.stack;
    for (const fn of [...functions.all, migrations.function]) {
      const dir = join(maps, fn.node.path);
      const map = JSON.parse(readFileSync(join(dir, `${BUNDLE_FILE}.map`), 'utf8'));
      expect(map.sources.length, fn.node.path).toBeGreaterThan(0);
      expect(map.sourcesContent, fn.node.path).toBeUndefined();
    }
    for (const [name, dir] of dirs) {
      expect(
        readdirSync(dir).filter((f) => f.endsWith('.map')),
        name,
      ).toEqual([]);
      expect(readFileSync(join(dir, BUNDLE_FILE), 'utf8'), name).not.toContain('sourceMappingURL');
    }
  });

  it('leave Drizzle, the tables, PGlite and the cuid2 package out of the route functions and the authorizer', () => {
    // Ids are made by db/queries/ids.ts over node:crypto; the package's SHA3 and bignumber.js stay out.
    const { functions } = synth.stack;
    const named = [
      ...[...functions.functionByRoute].map(([route, fn]) => [route.name, fn] as const),
      [authorizer.name, functions.authorizerFunction] as const,
    ];
    for (const [name, fn] of named) {
      const map = readFileSync(join(maps, fn.node.path, `${BUNDLE_FILE}.map`), 'utf8');
      const { sources } = JSON.parse(map) as { sources: string[] };
      expect(sources.length, name).toBeGreaterThan(10);
      const heavy = sources.filter((s) =>
        /node_modules\/(drizzle-orm|@electric-sql)\/|\/db\/schema\//.test(s),
      );
      expect(heavy, name).toEqual([]);
      expect(
        sources.some((s) => s.includes('node_modules/postgres/')),
        name,
      ).toBe(true);
      expect(
        sources.filter((s) => /@paralleldrive\/cuid2|@noble\/hashes|bignumber\.js/.test(s)),
        name,
      ).toEqual([]);
    }
  });

  it("carry the project's postgres.js patch (one flight per statement), as the install applied it", () => {
    // patches/postgres+3.4.9.patch, applied by `npm install`'s postinstall: without it every
    // statement deployed would take two round trips (docs/decisions.md, "Data"). Minified, its
    // condition reads `<query>.options.describe!==!1`.
    const names = [...routeList.map((r) => r.name), authorizer.name];
    for (const name of names) {
      const code = readFileSync(join(dirs.get(name) ?? '', BUNDLE_FILE), 'utf8');
      expect(code, name).toMatch(/\.options\.describe!==!1/);
    }
  });

  it('carry only the request schemas of their own route, and no response schema', () => {
    // Every module-level Valibot schema of an imported module is built at import (esbuild cannot
    // tell the calls are pure), so each body lives where only the routes that parse it import it.
    const onlyIn: Record<string, string[]> = {
      'contract/schemas/version-requests.ts': ['create-agent', 'create-version'],
      'contract/schemas/config.ts': ['create-agent', 'create-version'],
      'contract/schemas/requests.ts': ['create-agent', 'update-agent', 'publish-agent'],
      'contract/schemas/session-requests.ts': ['create-session', 'complete-session'],
      'contract/schemas/session-list-query.ts': ['list-sessions'],
      'contract/schemas/event.ts': [],
      'contract/schemas/agent.ts': [],
      'contract/schemas/agent-change.ts': [],
      'contract/schemas/session.ts': [],
    };
    const { functions } = synth.stack;
    const named = [
      ...[...functions.functionByRoute].map(([route, fn]) => [route.name, fn] as const),
      [authorizer.name, functions.authorizerFunction] as const,
    ];
    for (const [name, fn] of named) {
      const { sources } = JSON.parse(
        readFileSync(join(maps, fn.node.path, `${BUNDLE_FILE}.map`), 'utf8'),
      ) as {
        sources: string[];
      };
      const carried = Object.keys(onlyIn).filter((module) => sources.some((s) => s.endsWith(module)));
      expect(carried, name).toEqual(Object.keys(onlyIn).filter((module) => onlyIn[module]?.includes(name)));
    }
  });

  it("build no other route's request schema from a module they share", () => {
    // A schema a route may not read is built in a closure marked pure, so the minifier drops it
    // from the bundles that never read it; each message below belongs to one such schema.
    const builtIn: Record<string, string[]> = {
      'must be an absolute https URL': ['create-webhook-endpoint', 'update-webhook-endpoint'],
      'must be 0 or more': ['rotate-webhook-secret'],
      'must be after since': ['recover-webhook-events'],
      'is not a known time zone': ['get-usage'],
      'REDEMPTION_CODE, and only with it': ['create-credit'],
      'must change at least one of name, description, slug': ['update-agent'],
      'needs an email or a phone': ['create-session'],
      'must not be positive: usage spends credit': ['complete-session'],
      'must contain at least one visible character': ['create-agent', 'create-session', 'update-agent'],
      'must be an identifier: 1 to': ['list-ledger', 'list-sessions'],
    };
    const routeBundles = [...dirs].filter(([name]) => routeList.some((r) => r.name === name));
    for (const [message, routes] of Object.entries(builtIn)) {
      const carrying = routeBundles
        .filter(([, dir]) => readFileSync(join(dir, BUNDLE_FILE), 'utf8').includes(message))
        .map(([name]) => name)
        .sort();
      expect(carrying, message).toEqual(routes);
    }
  });

  it('exist for every route, the authorizer, admin and the migration, as minified strict CommonJS', () => {
    expect([...dirs.keys()].sort()).toEqual(
      [...routeList.map((r) => r.name), authorizer.name, 'admin', 'migrate'].sort(),
    );
    for (const [name, dir] of dirs) {
      const bundle = join(dir, BUNDLE_FILE);
      expect(existsSync(bundle), name).toBe(true);
      const kb = statSync(bundle).size / 1024;
      console.info(`${name}: ${kb.toFixed(1)} KB`);
      expect(kb, name).toBeLessThan(512);
      const code = readFileSync(bundle, 'utf8');
      // The directive first: after the banner's statement it would be an expression, and sloppy.
      expect(code.startsWith('"use strict";'), name).toBe(true);
      // PGlite stays out: only the lazy import's specifier may remain.
      expect(code, name).not.toMatch(/pglite\.wasm|class PGlite/);
    }
  });

  it("require only Node's own modules and the runtime's AWS SDK, each by name", () => {
    // Nothing else is beside a function in Lambda: a `require` of a bundled dependency's that
    // esbuild could not resolve would fail at run time. Every function of the stack is checked.
    const bundles = readdirSync(synth.outdir)
      .map((entry) => join(synth.outdir, entry, BUNDLE_FILE))
      .filter((file) => existsSync(file));
    expect(bundles.length).toBeGreaterThan(dirs.size);
    const external = (name: string) =>
      builtinModules.includes(name.replace(/^node:/, '')) ||
      EXTERNAL_MODULES.some((pattern) => new RegExp(`^${pattern.replace('*', '.*')}$`).test(name));
    for (const file of bundles) {
      const code = readFileSync(file, 'utf8');
      expect(code, file).not.toContain('Dynamic require of');
      const required = [...code.matchAll(/\brequire\(([^)]*)\)/g)].map(([, arg]) => arg ?? '');
      expect(required.length, file).toBeGreaterThan(0);
      const byName = required.map((arg) => /^"([^"]+)"$/.exec(arg)?.[1] ?? `(not a name: ${arg})`);
      expect(
        byName.filter((name) => !external(name)),
        file,
      ).toEqual([]);
    }
  });

  it('import under Node without touching a database', () => {
    for (const [name, dir] of dirs) {
      expect(() => importInNode(join(dir, BUNDLE_FILE)), name).not.toThrow();
    }
  });

  it('carry the committed migrations beside the migration bundle', () => {
    const migrations = join(dirs.get('migrate') as string, 'migrations');
    expect(existsSync(join(migrations, 'meta', '_journal.json'))).toBe(true);
    const journal = JSON.parse(readFileSync(join(migrations, 'meta', '_journal.json'), 'utf8'));
    for (const entry of journal.entries) expect(existsSync(join(migrations, `${entry.tag}.sql`))).toBe(true);
  });

  describe.runIf(process.env.DATABASE_URL)(
    'with a Postgres server (skipped on PGlite: the bundles hold postgres.js only)',
    () => {
      const admin = postgres(process.env.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
      const name = `vaa_bundle_${process.pid}`;
      afterAll(async () => {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end();
      });

      it('the migration bundle applies its migrations to an empty database, twice without harm', async () => {
        await admin.unsafe(`create database "${name}"`);
        const url = new URL(process.env.DATABASE_URL ?? '');
        url.pathname = `/${name}`;
        const run = `console.log(JSON.stringify(await m.handler({}, { getRemainingTimeInMillis: () => 60000 })));`;
        const bundle = join(dirs.get('migrate') as string, BUNDLE_FILE);
        for (let i = 0; i < 2; i++) {
          expect(importInNode(bundle, run, { DATABASE_URL: url.toString() })).toContain('"attempts":1');
        }
        const target = postgres(url.toString(), { max: 1, onnotice: () => {} });
        const tables =
          await target`select count(*)::int as n from information_schema.tables where table_schema = 'public'`;
        await target.end();
        expect(tables[0]?.n).toBeGreaterThan(5);
      });

      it('the admin bundle answers commands over that database, and refuses the seed without DEMO_SEED', () => {
        const url = new URL(process.env.DATABASE_URL ?? '');
        url.pathname = `/${name}`;
        const bundle = join(dirs.get('admin') as string, BUNDLE_FILE);
        const call = (event: unknown) =>
          JSON.parse(
            importInNode(
              bundle,
              // Ended once it answered: its idle connection would hold the process 20 s more.
              `console.log(JSON.stringify(await m.handler(${JSON.stringify(event)}))); process.exit();`,
              { DATABASE_URL: url.toString() },
            )
              .trim()
              .split('\n')
              .at(-1) ?? '',
          );
        expect(call({ command: 'workspace.create', name: 'From the bundle' })).toMatchObject({
          ok: true,
          result: { workspace: { name: 'From the bundle' } },
        });
        expect(call({ command: 'seed.demo' })).toMatchObject({ ok: false, error: { code: 'refused' } });
        expect(call({ command: 'nope' })).toMatchObject({ ok: false, error: { code: 'invalid-command' } });
      });
    },
  );
});
