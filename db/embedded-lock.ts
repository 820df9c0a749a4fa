import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Raised when another live process holds the embedded database. */
export class EmbeddedDatabaseBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    /** The holder's announced server, when it is `npm start`. */
    readonly server?: LocalServer,
  ) {
    super(`the embedded database in ${dataDir} is in use by process ${pid} (npm start?)`);
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
};

/**
 * PGlite is one process's database: a second process opening the same directory works on its
 * own copy of the pages, and whichever closes last silently overwrites the other's writes. So
 * every entry point takes `<dataDir>.lock` (beside the directory, not inside PGlite's files),
 * holding its pid; a lock left by a process that is gone is taken over. Returns the release.
 */
export function lockEmbeddedDatabase(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  const take = () => writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
  try {
    take();
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
    const holder = Number.parseInt(readFileSync(file, 'utf8'), 10);
    if (holder > 0 && holder !== process.pid && alive(holder))
      throw new EmbeddedDatabaseBusy(dataDir, holder, announcedServer(dataDir, holder));
    rmSync(file, { force: true });
    take();
  }
  return () => rmSync(file, { force: true });
}

/**
 * What a running `npm start` tells the tools that find its embedded database locked: where it
 * listens, and its local admin channel (admin commands and the sweep, run in its process over its
 * database), with the secret that channel asks for. Kept beside the lock as `<dataDir>.server.json`,
 * mode 0600 (only this user's processes may use the channel).
 */
export interface LocalServer {
  pid: number;
  apiUrl: string;
  adminUrl: string;
  secret: string;
}

const serverFile = (dataDir: string) => `${dataDir}.server.json`;

/** Announces this process's server; returns the withdrawal. */
export function announceServer(dataDir: string, server: Omit<LocalServer, 'pid'>): () => void {
  const file = serverFile(dataDir);
  writeFileSync(file, `${JSON.stringify({ pid: process.pid, ...server })}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // the mode applies only when the file is new
  return () => rmSync(file, { force: true });
}

/** The server announced by `holder`, the lock's live holder; none when it announced nothing (a CLI holds it). */
export function announcedServer(dataDir: string, holder: number): LocalServer | undefined {
  try {
    const server = JSON.parse(readFileSync(serverFile(dataDir), 'utf8')) as LocalServer;
    return server.pid === holder && server.adminUrl && server.secret ? server : undefined;
  } catch {
    return undefined;
  }
}
