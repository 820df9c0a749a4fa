import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Raised when another live process holds the embedded database. */
export class EmbeddedDatabaseBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
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
      throw new EmbeddedDatabaseBusy(dataDir, holder);
    rmSync(file, { force: true });
    take();
  }
  return () => rmSync(file, { force: true });
}
