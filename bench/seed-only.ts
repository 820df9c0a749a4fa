import { ensureBenchDatabase, serverUrlFromEnv } from './database.ts';
import { parseOptions } from './plan.ts';

/** `tsx bench/seed-only.ts --sessions N`: seeds (or checks) a bench database ahead of a run. */
const options = parseOptions(process.argv.slice(2));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const db = await ensureBenchDatabase(serverUrlFromEnv(), options.databaseName, options.sessions, log);
await db.handle.close();
