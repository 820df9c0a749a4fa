import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { DatabaseHandle } from '#db/client.ts';
import type { LocalServer } from '#db/embedded-lock.ts';
import { DatabaseUnusable, EmbeddedDatabaseHeld } from '#db/errors.ts';

export { describeDatabase } from '#db/config.ts';

/** Bad arguments: reported with the usage text, exit status 2. */
export class UsageError extends Error {}
/** A failure the user can act on (unknown workspace, revoked key…): message only, exit status 1. */
export class CliError extends Error {}

/** `node:util` parseArgs, with its complaints turned into usage errors. */
export function parse<T extends ParseArgsConfig>(config: T) {
  try {
    return parseArgs({ strict: true, ...config });
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      // Keep Node's first sentence; its advice about `--` does not apply to npm scripts.
      throw new UsageError((error as Error).message.replace(/\. To specify a positional.*$/s, ''));
    }
    throw error;
  }
}

/**
 * The database named by the environment (DATABASE_URL, else embedded); always closed after `work`.
 * When `npm start` holds the embedded database, `viaServer` (if given) does the work through it
 * instead (cli/local-server.ts).
 */
export async function withDatabase<T>(
  work: (handle: DatabaseHandle) => Promise<T>,
  viaServer?: (server: LocalServer) => Promise<T>,
): Promise<T> {
  // Loaded here, not at the top: a command refused for its arguments never loads the driver.
  const { explainDatabaseError, openDatabaseFromEnv } = await import('#db/open.ts');
  let handle: DatabaseHandle;
  try {
    handle = await openDatabaseFromEnv();
  } catch (error) {
    if (error instanceof EmbeddedDatabaseHeld && error.server && viaServer) return viaServer(error.server);
    throw error;
  }
  try {
    return await work(handle);
  } catch (error) {
    throw explainDatabaseError(error, handle.config);
  } finally {
    await handle.close();
  }
}

/**
 * Runs a command's main: user errors become one line on stderr (plus the usage for bad
 * arguments) and a non-zero exit status, never a stack trace; DEBUG=1 shows unexpected ones in full.
 */
export async function run(command: string, usage: string, main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${command}: ${error.message}\n\n${usage.trim()}\n`);
      process.exitCode = 2;
      return;
    }
    process.exitCode = 1;
    if (error instanceof CliError || error instanceof DatabaseUnusable) {
      process.stderr.write(`${command}: ${error.message}\n`);
      return;
    }
    const detail = process.env.DEBUG ? (error as Error).stack : (error as Error)?.message?.split('\n')[0];
    process.stderr.write(`${command}: unexpected error: ${detail}\n`);
    if (!process.env.DEBUG) process.stderr.write('(set DEBUG=1 for details)\n');
  }
}

/** Prints lines on stdout; a token, when there is one, always goes last so `tail -1` gets it. */
export function say(...lines: string[]): void {
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Rows as aligned columns, the first row the header. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
