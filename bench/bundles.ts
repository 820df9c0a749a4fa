import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BuildOptions, build } from 'esbuild';
import { authorizer, routeList } from '#contract/routes.ts';
import * as lambda from '#infra/constructs/lambda.ts';
import { copyChildScripts } from './baseline-tree.ts';
import { median } from './stats.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface BundleReport {
  name: string;
  bytes: number;
  /**
   * Median ms from `import()` to the handler module being evaluated (module init only), with the
   * functions' environment (NODE_OPTIONS) as the stack deploys it.
   */
  importMs: number;
  /** Median ms from process start to the handler being loaded: Node's own start-up included. */
  readyMs: number;
  /** The same two without any NODE_OPTIONS. */
  importMsPlain: number;
  readyMsPlain: number;
  /** The functions' NODE_OPTIONS the first two were measured with. */
  nodeOptions: string;
}

/**
 * The tree's esbuild options: infra/constructs/lambda.ts's own (imported, not copied). A baseline
 * tree older than them held NodejsFunction's bundling options (`BUNDLING`), which NodejsFunction
 * passed to esbuild as these are.
 */
function esbuildOptionsOfTree(): BuildOptions {
  const tree = lambda as Record<string, unknown>;
  if (tree.ESBUILD_OPTIONS) return tree.ESBUILD_OPTIONS as BuildOptions;
  const legacy = tree.BUNDLING as {
    format: 'cjs' | 'esm';
    banner?: string;
    define?: Record<string, string>;
    mainFields: string[];
    minify: boolean;
    sourceMap: boolean;
    sourceMapMode: 'default' | 'external' | 'inline' | 'both';
    sourcesContent: boolean;
    externalModules: string[];
  };
  return {
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: legacy.format,
    ...(legacy.banner ? { banner: { js: legacy.banner }, define: legacy.define } : {}),
    mainFields: [...legacy.mainFields],
    minify: legacy.minify,
    sourcemap: legacy.sourceMap && (legacy.sourceMapMode === 'default' ? 'linked' : legacy.sourceMapMode),
    sourcesContent: legacy.sourcesContent,
    external: [...legacy.externalModules],
  };
}

/**
 * The floors, bundled and timed the same way: a handler that imports nothing, and one that only
 * imports the database driver (postgres.js, which loads `tls`, `crypto` and more at its top) and
 * makes a client without connecting. A route's import over the second is its own code's.
 */
const EMPTY_FLOOR = 'empty-handler';
const DRIVER_FLOOR = 'postgres-handler';
const FLOORS = {
  [EMPTY_FLOOR]: `export const handler = async () => ({ statusCode: 204 });`,
  [DRIVER_FLOOR]: `import postgres from 'postgres';
const sql = postgres({ max: 1 });
export const handler = async () => ({ statusCode: 200, body: JSON.stringify(await sql\`select 1 as one\`) });`,
} as const;
export const isFloor = (name: string) => name in FLOORS;
/** The floors among timed bundles: the empty handler, and the handler with the driver alone. */
export const floorsOf = (bundles: readonly BundleReport[]) => ({
  empty: bundles.find((b) => b.name === EMPTY_FLOOR),
  driver: bundles.find((b) => b.name === DRIVER_FLOOR),
});

/** A bundle as the tree's stack builds it (`esbuildOptionsOfTree`), under the name Lambda loads it by. */
export async function bundle(name: string, entry: string | { contents: string }, outDir: string) {
  const options = esbuildOptionsOfTree();
  // A baseline tree may still bundle ES modules (without a banner).
  const esm = options.format === 'esm';
  const outfile = join(outDir, name, esm ? 'index.mjs' : 'index.js');
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    ...options,
    ...(typeof entry === 'string'
      ? { entryPoints: [join(ROOT, entry)] }
      : { stdin: { contents: entry.contents, loader: 'ts', resolveDir: ROOT } }),
    outfile,
    logLevel: 'error',
  });
  // As in the zip, where no package.json says otherwise: an `index.js` is CommonJS, also when the
  // folder is inside this repository (whose package.json says `"type": "module"`).
  if (!esm) writeFileSync(join(dirname(outfile), 'package.json'), '{ "type": "commonjs" }\n');
  return outfile;
}

interface ImportTime {
  importMs: number;
  readyMs: number;
}

// The functions set no NODE_OPTIONS (infra/constructs/lambda.ts: no --enable-source-maps since the
// maps left the zip); the "plain" timings are then the same run twice, kept for a stack that sets some.
export const NODE_OPTIONS = '';

/**
 * What Lambda's Node.js runtime has loaded before it imports a handler: its runtime client takes
 * `node:http` (and with it `net`, `stream`, `events`) at its top and makes a keep-alive Agent
 * (aws-lambda-nodejs-runtime-interface-client, src/client/rapid-client.ts), and loads a handler
 * with its own `require` (src/UserFunction.js). A bare `node` has done neither, so without this a
 * handler that needs them would be charged for the runtime's own modules.
 */
/** The `require` the runtime loads a CommonJS handler with (`loadBundle`). */
export const RUNTIME_REQUIRE = `const require = (await import('node:module')).createRequire(import.meta.url);`;

const RUNTIME_PRELOAD = `const { Agent } = await import('node:http');
new Agent({ keepAlive: true, maxSockets: 1 });
${RUNTIME_REQUIRE}`;

/**
 * The expression that loads a bundle as Lambda's runtime does (aws-lambda-nodejs-runtime-interface-client,
 * UserFunction.js): an `index.js` with no `"type": "module"` beside it by `require`, an `index.mjs`
 * by `import()`. Needs `RUNTIME_REQUIRE` first.
 */
export const loadBundle = (file: string) =>
  file.endsWith('.mjs')
    ? `await import(${JSON.stringify(pathToFileURL(file).href)})`
    : `require(${JSON.stringify(file)})`;

/** One fresh `node` per measurement, with no database settings: init must not connect. */
function timeImport(file: string, deployed: boolean): ImportTime {
  const script = `${RUNTIME_PRELOAD}
const t0 = performance.now();
const m = ${loadBundle(file)};
const t1 = performance.now();
if (typeof m.handler !== 'function') throw new Error('no handler export');
process.stdout.write(JSON.stringify({ importMs: t1 - t0, readyMs: t1 }));`;
  const args = ['--input-type=module', '-e', script];
  const env = { PATH: process.env.PATH ?? '', ...(deployed && NODE_OPTIONS ? { NODE_OPTIONS } : {}) };
  const out = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`importing ${file} failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

export interface BuiltBundle {
  name: string;
  file: string;
}

/** Every function of this tree (its route table, its bundling options) and the floors, bundled. */
export async function buildBundles(outDir: string): Promise<BuiltBundle[]> {
  const entries: Array<[string, string | { contents: string }]> = [
    ...routeList.map((r) => [r.name, r.entry] as [string, string]),
    [authorizer.name, authorizer.entry],
    ...Object.entries(FLOORS).map(
      ([name, contents]) => [name, { contents }] as [string, { contents: string }],
    ),
  ];
  return Promise.all(
    entries.map(async ([name, entry]) => ({ name, file: await bundle(name, entry, outDir) })),
  );
}

/**
 * Times the imports of the bundles given, round-robin over all of them, so a noisy moment spreads
 * over every bundle (and over both trees' when a baseline's are among them) instead of landing on one.
 */
export function timeBundles(built: BuiltBundle[], runs: number): BundleReport[] {
  const samples = built.map(() => ({ plain: [] as ImportTime[], deployed: [] as ImportTime[] }));
  for (let i = 0; i < runs; i++) {
    built.forEach(({ file }, f) => {
      samples[f]?.plain.push(timeImport(file, false));
      samples[f]?.deployed.push(timeImport(file, true));
    });
  }
  return built.map(({ name, file }, f) => {
    const s = samples[f] as { plain: ImportTime[]; deployed: ImportTime[] };
    return {
      name,
      bytes: statSync(file).size,
      importMs: median(s.deployed.map((x) => x.importMs)),
      readyMs: median(s.deployed.map((x) => x.readyMs)),
      importMsPlain: median(s.plain.map((x) => x.importMs)),
      readyMsPlain: median(s.plain.map((x) => x.readyMs)),
      nodeOptions: NODE_OPTIONS,
    };
  });
}

/**
 * This tree's bundles and, with `baselineDir` (a baseline's worktree, bench/baseline-tree.ts), that
 * tree's own, built there by its own route table and bundling options; every import timed in the
 * same rounds. The floors too: the same code, but bundled in each tree's format (ES modules, then
 * CommonJS), so each tree's functions are read over its own floors.
 */
export async function measureBundles(
  outDir: string,
  runs: number,
  baselineDir?: string,
  /** Which of the built bundles are timed and reported (default all; the floors always). */
  timing: (name: string) => boolean = () => true,
): Promise<{ current: BundleReport[]; baseline: BundleReport[] }> {
  const chosen = (b: BuiltBundle) => isFloor(b.name) || timing(b.name);
  const current = (await buildBundles(join(outDir, 'current'))).filter(chosen);
  const baseline = baselineDir
    ? buildBaselineBundles(baselineDir, join(outDir, 'baseline')).filter(chosen)
    : [];
  const timed = timeBundles([...current, ...baseline], runs);
  return { current: timed.slice(0, current.length), baseline: timed.slice(current.length) };
}

/** The baseline tree's bundles: bundles-build.ts (with this file) copied into it and run there. */
function buildBaselineBundles(tree: string, outDir: string): BuiltBundle[] {
  const scripts = copyChildScripts(tree, ['bundles-build.ts']);
  const out = spawnSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), join(scripts, 'bundles-build.ts'), outDir],
    { cwd: tree, encoding: 'utf8' },
  );
  if (out.status !== 0) throw new Error(`building the baseline's bundles failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as BuiltBundle[];
}
