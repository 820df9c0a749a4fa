import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A tiny request/response protocol over Node's IPC channel, so the servers under test run in
 * processes of their own: autocannon, the gateway and the baseline never share an event loop.
 */
interface Call {
  id: number;
  command: string;
  args: unknown;
}
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
type Ready = { ready: unknown };

export type Commands = Record<string, (args: never) => unknown>;

export interface Child<C extends Commands> {
  /** What the child sent when it became ready (e.g. its URL). */
  ready: unknown;
  call<K extends keyof C & string>(
    command: K,
    args?: Parameters<C[K]>[0],
  ): Promise<Awaited<ReturnType<C[K]>>>;
  /** Asks the child to exit and waits for it. */
  stop(): Promise<void>;
}

const TSX = import.meta.resolve('tsx');
/** What a gateway process is started with besides tsx: its pool keeps idle connections open. */
export const GATEWAY_IMPORTS = [import.meta.resolve('./connections-kept/register.mjs')];

/**
 * Forks `script` under tsx and waits for its ready message: a .ts file beside this one, or in
 * `dir` (which is then also its working directory: a baseline's tree, bench/baseline-tree.ts);
 * `imports` are `--import`ed after tsx.
 */
export async function startChild<C extends Commands>(
  script: string,
  env: Record<string, string>,
  { dir, imports = [] }: { dir?: string; imports?: readonly string[] } = {},
): Promise<Child<C>> {
  const path = dir ? join(dir, script) : fileURLToPath(new URL(script, import.meta.url));
  const child: ChildProcess = fork(path, [], {
    execArgv: ['--import', TSX, ...imports.flatMap((module) => ['--import', module])],
    env: { ...process.env, ...env },
    ...(dir ? { cwd: dir } : {}),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const p of pending.values()) p.reject(new Error(`${script} exited`));
  });

  const ready = await new Promise<unknown>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    child.on('message', (message: Reply | Ready) => {
      if ('ready' in message) return resolve(message.ready);
      const p = pending.get(message.id);
      pending.delete(message.id);
      if (message.ok) p?.resolve(message.value);
      else p?.reject(new Error(`${script}: ${message.error}`));
    });
  });

  return {
    ready,
    call: (command, args) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, command, args } satisfies Call);
      }) as never,
    stop: async () => {
      if (child.exitCode === null) child.send({ id: 0, command: 'exit', args: undefined });
      await exited;
    },
  };
}

/** The child's side: answers calls with `commands`, exits on `exit`, then tells the parent it is ready. */
export function serveCommands(commands: Commands, ready: unknown, onExit: () => Promise<void>) {
  process.on('message', async (call: Call) => {
    if (call.command === 'exit') {
      await onExit();
      process.exit(0);
    }
    try {
      const handler = commands[call.command];
      if (!handler) throw new Error(`unknown command ${call.command}`);
      process.send?.({ id: call.id, ok: true, value: await handler(call.args as never) } satisfies Reply);
    } catch (error) {
      process.send?.({ id: call.id, ok: false, error: String(error) } satisfies Reply);
    }
  });
  // Never outlive the bench: an interrupted run must not leave servers behind.
  process.on('disconnect', () => process.exit(0));
  process.send?.({ ready } satisfies Ready);
}
