import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '#db/client.ts';
import { migrate } from '#db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** With DATABASE_URL: a migrated database each test file clones with CREATE DATABASE … TEMPLATE. */
    templateDatabase: string;
    /** Without: a migrated PGlite data directory dump each test file loads. */
    pgliteDump: string;
  }
}

/** Aurora's role for IAM database authentication, which a plain server lacks (test/db/app-role.test.ts). */
const RDS_IAM = 'rds_iam';
/**
 * Every run on a server holds this advisory lock shared for its whole length: the last one to end
 * is the one that can take it alone. (A database of a run that was killed says nothing about
 * whether a run is still going, so it cannot be the sign.)
 */
const RUNS_LOCK = 7_305_261_128;

/**
 * Migrate once per run; every test file then starts from a copy of that fresh, empty database.
 * On a server, whatever the run creates there it removes at the end: the template database here,
 * each file's databases and roles in that file (test/helpers/database.ts), and `rds_iam` when the
 * server did not have it before the run.
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (url) {
    const name = `vaa_tpl_${randomBytes(4).toString('hex')}`;
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin`select pg_advisory_lock_shared(${RUNS_LOCK})`;
    const hadRdsIam = (await admin`select 1 from pg_roles where rolname = ${RDS_IAM}`).length > 0;
    await admin.unsafe(`create database "${name}"`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    const handle = await openDatabase({ kind: 'postgres', url: target.toString() });
    await migrate(handle);
    await handle.close();
    project.provide('templateDatabase', name);
    project.provide('pgliteDump', '');
    return async () => {
      // The template, and any database of this run a test file left behind (test/helpers/database.ts).
      const left = await admin<{ datname: string }[]>`select datname from pg_database
        where datname = ${name} or starts_with(datname, ${`${name}_`})`;
      for (const { datname } of left) await admin.unsafe(`drop database if exists "${datname}" with (force)`);
      // Another run still going on this server may be using it: left to the last one.
      await admin`select pg_advisory_unlock_shared(${RUNS_LOCK})`;
      const [last] = await admin<{ alone: boolean }[]>`select pg_try_advisory_lock(${RUNS_LOCK}) as alone`;
      if (!hadRdsIam && last?.alone) await admin.unsafe(`drop role if exists ${RDS_IAM}`);
      await admin.end();
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'vaa-pglite-'));
  const handle = await openDatabase({ kind: 'pglite' });
  await migrate(handle);
  // `Database` is driver-neutral and does not name `$client`; this one was opened as PGlite.
  const client = (handle.db as unknown as { $client: PGlite }).$client;
  const dump = await client.dumpDataDir('none');
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await handle.close();
  project.provide('templateDatabase', '');
  project.provide('pgliteDump', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
