/**
 * A running `npm start` as the CLIs reach it when it holds the embedded database: its local admin
 * channel (infra/local/admin-channel.ts), found through the server file it announces beside the
 * lock (db/embedded-lock.ts). Nothing to set: the file says where, and the secret to send.
 */
import type { LocalServer } from '#db/embedded-lock.ts';
import { CliError } from './common.ts';

/** For messages: the same database, reached through the server that holds it. */
export const throughServer = (server: LocalServer) =>
  `embedded database, through npm start (${server.apiUrl})`;

/** One request to the channel; its JSON answer. */
export async function callServer(
  server: LocalServer,
  path: '/admin' | '/sweep',
  body?: unknown,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(new URL(path, server.adminUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${server.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
  } catch (error) {
    throw new CliError(
      `npm start (process ${server.pid}) holds the embedded database but its admin channel at ${server.adminUrl} did not answer (${(error as Error).message}): restart it`,
    );
  }
  const answer = (await response.json().catch(() => ({}))) as { message?: string };
  if (!response.ok) {
    throw new CliError(`npm start's admin channel answered ${response.status}: ${answer.message ?? ''}`);
  }
  return answer;
}
