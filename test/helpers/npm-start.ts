import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface NpmStart {
  /** The API's base URL, as the banner prints it. */
  url: string;
  /** The demo token the banner prints. */
  token: string;
  output: () => string;
  /** SIGTERM, then waits for the process to end. */
  stop(): Promise<void>;
}

/**
 * `npm start` as a user runs it (`tsx infra/local/server.ts`: tsx's loader), in a child process on
 * the embedded database in `dataDir`, on a free port, with no AWS variables and no DATABASE_URL. Resolves once
 * it listens and has announced its admin channel beside the lock (db/embedded-lock.ts).
 */
export async function startNpmStart(dataDir: string, extra: NodeJS.ProcessEnv = {}): Promise<NpmStart> {
  const env: NodeJS.ProcessEnv = { ...process.env, DEBUG: '', PORT: '0', PGLITE_DATA_DIR: dataDir, ...extra };
  for (const key of Object.keys(env)) if (key.startsWith('AWS_') || key === 'LOCAL_AWS_PORT') delete env[key];
  delete env.DATABASE_URL;
  // tsx's loader in the server's own process, without the tsx command's wrapper: signalled alone,
  // the wrapper kills the server (SIGKILL, no cleanup) unless it hears back within 30 ms, which a
  // busy machine misses. A terminal's Ctrl-C signals both, and the server answers in time.
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/local/server.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const ended = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await ended;
  };
  for (const started = Date.now(); ; await sleep(100)) {
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    const token = /^\s+(vak_\S+)$/m.exec(out)?.[1];
    if (url && token && existsSync(`${dataDir}.server.json`)) {
      return { url, token, output: () => out, stop };
    }
    if (child.exitCode !== null || Date.now() - started > 90_000) {
      await stop();
      throw new Error(`npm start did not come up:\n${out}`);
    }
  }
}
