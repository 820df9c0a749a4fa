import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build } from 'esbuild';
import { authorizer, routeList } from '#contract/routes.ts';
import { BUNDLING } from '#infra/constructs/lambda.ts';
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

/** NodejsFunction's source map modes as esbuild's `sourcemap` values. */
const esbuildSourceMap = (mode: SourceMapMode) => (mode === SourceMapMode.DEFAULT ? 'linked' : mode);

/** The floor: a handler that imports nothing, bundled and timed the same way. */
const EMPTY_HANDLER = `export const handler = async () => ({ statusCode: 204 });`;

/**
 * infra/constructs/lambda.ts's own bundling options (imported, not copied), as NodejsFunction
 * passes them to esbuild: Node 22, bundled, platform node.
 */
export async function bundle(name: string, entry: string | { contents: string }, outDir: string) {
  const outfile = join(outDir, name, 'index.mjs');
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    ...(typeof entry === 'string'
      ? { entryPoints: [join(ROOT, entry)] }
      : { stdin: { contents: entry.contents, loader: 'ts', resolveDir: ROOT } }),
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: BUNDLING.format === 'esm' ? 'esm' : 'cjs',
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    minify: BUNDLING.minify,
    // EXTERNAL: the map is written without a sourceMappingURL comment, so nothing loads it.
    sourcemap: BUNDLING.sourceMap && esbuildSourceMap(BUNDLING.sourceMapMode),
    sourcesContent: BUNDLING.sourcesContent,
    external: [...BUNDLING.externalModules],
    logLevel: 'error',
  });
  return outfile;
}

interface ImportTime {
  importMs: number;
  readyMs: number;
}

// The functions set no NODE_OPTIONS (infra/constructs/lambda.ts: no --enable-source-maps since the
// maps left the zip); the "plain" timings are then the same run twice, kept for a stack that sets some.
export const NODE_OPTIONS = '';

/** One fresh `node` per measurement, with no database settings: init must not connect. */
function timeImport(file: string, deployed: boolean): ImportTime {
  const script = `const t0 = performance.now();
const m = await import(${JSON.stringify(pathToFileURL(file).href)});
const t1 = performance.now();
if (typeof m.handler !== 'function') throw new Error('no handler export');
process.stdout.write(JSON.stringify({ importMs: t1 - t0, readyMs: t1 }));`;
  const args = ['--input-type=module', '-e', script];
  const env = { PATH: process.env.PATH ?? '', ...(deployed && NODE_OPTIONS ? { NODE_OPTIONS } : {}) };
  const out = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`importing ${file} failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

/** Bundles every function and the empty handler, then times their imports round-robin. */
export async function measureBundles(outDir: string, runs: number): Promise<BundleReport[]> {
  const entries: Array<[string, string | { contents: string }]> = [
    ...routeList.map((r) => [r.name, r.entry] as [string, string]),
    [authorizer.name, authorizer.entry],
    ['empty-handler', { contents: EMPTY_HANDLER }],
  ];
  const files = await Promise.all(entries.map(([name, entry]) => bundle(name, entry, outDir)));
  const samples = files.map(() => ({ plain: [] as ImportTime[], deployed: [] as ImportTime[] }));
  // Round-robin, so a noisy moment spreads over every bundle instead of landing on one.
  for (let i = 0; i < runs; i++) {
    files.forEach((file, f) => {
      samples[f]?.plain.push(timeImport(file, false));
      samples[f]?.deployed.push(timeImport(file, true));
    });
  }
  return files.map((file, f) => {
    const s = samples[f] as { plain: ImportTime[]; deployed: ImportTime[] };
    return {
      name: entries[f]?.[0] as string,
      bytes: statSync(file).size,
      importMs: median(s.deployed.map((x) => x.importMs)),
      readyMs: median(s.deployed.map((x) => x.readyMs)),
      importMsPlain: median(s.plain.map((x) => x.importMs)),
      readyMsPlain: median(s.plain.map((x) => x.readyMs)),
      nodeOptions: NODE_OPTIONS,
    };
  });
}
