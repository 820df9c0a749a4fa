import { optionsOrExit } from './plan.ts';

/**
 * `npm run bench [-- --quick]` (bench/measure-all.ts). The options are read first, so that
 * `--help` and a mistyped option answer before the bench, its drivers and its servers load.
 */
optionsOrExit(process.argv.slice(2));
await import('./measure-all.ts');
