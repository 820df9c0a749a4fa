import { type ChildProcess, spawn } from 'node:child_process';
import { closedPort as freePort } from './cli.ts';

export interface Prism {
  url: string;
  /** What Prism printed: its violation log, for failure messages. */
  output(): string;
  close(): Promise<void>;
}

/**
 * Stoplight Prism as a validating proxy in front of `upstream`: every answer comes back with an
 * `sl-violations` header listing where the request or the response departs from `document`.
 */
export async function startPrismProxy(document: string, upstream: string): Promise<Prism> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'node_modules/.bin/prism',
    ['proxy', document, upstream, '--host', '127.0.0.1', '--port', String(port), '--cors=false'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
  );
  let log = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await new Promise<void>((ready, fail) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Prism is listening on')) ready();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => fail(new Error(`prism exited (${code}) before listening:\n${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => log,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
