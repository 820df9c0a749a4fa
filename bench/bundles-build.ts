import { buildBundles } from './bundles.ts';

/**
 * Run inside a baseline's worktree (copied there by bench/bundles.ts): builds that tree's bundles
 * into the directory given and prints where they are, as JSON.
 */
const outDir = process.argv[2];
if (!outDir) throw new Error('usage: bundles-build.ts <out dir>');
process.stdout.write(JSON.stringify(await buildBundles(outDir)));
