import { optionsOrExit } from './plan.ts';

/** `tsx bench/seed-only.ts --sessions N`: seeds (or checks) a bench database ahead of a run. */
const options = optionsOrExit(process.argv.slice(2), 'tsx bench/seed-only.ts');
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
// After the options: a mistyped one answers without loading the database layer.
const { ensureBenchDatabase, serverUrlFromEnv } = await import('./database.ts');
const db = await ensureBenchDatabase(serverUrlFromEnv(), options.databaseName, options.sessions, log);
await db.handle.close();
