import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { raw } from 'sql-template-tag';
import type { Database, DatabaseHandle, SqlRunner, Statement } from '#db/database.ts';
import { sqlState } from '#db/errors.ts';
import { rowsOf } from '#db/queries/rows.ts';

/**
 * The schema safety net: every statement the query modules can send, run on a migrated database,
 * and every function the migrations define, called. A statement or function body naming a table
 * or column the database does not have fails with SQLSTATE class 42 (42703 undefined column,
 * 42P01 undefined table, …); that is what it reports, by name. Other failures (a raised VA403, a
 * constraint) are the data's business, not the schema's.
 */

const QUERIES = resolve(import.meta.dirname, '../../db/queries');

/** Whatever a sample needs: the recording runner (or Drizzle, for the tools' modules) and seeded ids. */
export interface SampleContext<Seed> {
  runner: SqlRunner;
  db: Database;
  seed: Seed;
}

/** Calls of a module's functions, by function name; each call one variant of its statements. */
export type Samples<Seed> = Record<
  string,
  Record<string, ((ctx: SampleContext<Seed>) => Promise<unknown>)[]>
>;

export interface Broken {
  /** `db/queries/<module> <function> #<n>` (the n-th statement it sent), `function <name>(…)`, `trigger …`. */
  name: string;
  sqlState: string;
  message: string;
}

export interface NetReport {
  broken: Broken[];
  /** Functions of db/queries that send SQL (their first parameter is a runner or Drizzle) without a sample. */
  uncovered: string[];
  /** Samples that sent no statement through the runner although their function takes one. */
  silent: string[];
  /** How many statements ran. */
  statements: number;
}

/** A schema error: the statement or body names something the database does not hold. */
const isSchemaError = (state: string | undefined): state is string => state?.startsWith('42') ?? false;

class Rollback extends Error {}

/** A runner passing each statement to `tx` in a savepoint of its own, recording schema errors. */
function recordingRunner(tx: SqlRunner, name: string, report: NetReport, sent: { n: number }): SqlRunner {
  const wrap = (runner: SqlRunner): SqlRunner => ({
    rows: async <T>(statement: Statement) => {
      const n = ++sent.n;
      report.statements++;
      try {
        return await runner.transaction((sp) => sp.rows<T>(statement));
      } catch (error) {
        const state = sqlState(error);
        if (!isSchemaError(state)) throw error;
        report.broken.push({ name: `${name} #${n}`, sqlState: state, message: (error as Error).message });
        return [];
      }
    },
    transaction: (work) => runner.transaction((inner) => work(wrap(inner))),
    get inTransaction() {
      return runner.inTransaction;
    },
  });
  return wrap(tx);
}

/** The first parameter's name of an exported function: `runner`, `tx` or `db` mark one that sends SQL. */
function firstParameter(fn: (...args: never[]) => unknown): string | undefined {
  return /^(?:async\s+)?(?:function\s*\*?\s*[\w$]*\s*)?\(?\s*([\w$]+)/.exec(fn.toString())?.[1];
}

/** Every function of every db/queries module that takes a runner (or Drizzle) first: `module function`. */
export async function queryFunctions(): Promise<
  Map<string, { module: string; fn: string; drizzle: boolean }>
> {
  const found = new Map<string, { module: string; fn: string; drizzle: boolean }>();
  for (const file of readdirSync(QUERIES)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const module = (await import(join(QUERIES, file))) as Record<string, unknown>;
    for (const [fn, value] of Object.entries(module)) {
      if (typeof value !== 'function' || /^[A-Z]/.test(fn)) continue;
      const first = firstParameter(value as (...args: never[]) => unknown);
      if (first === 'runner' || first === 'tx' || first === 'db')
        found.set(`${file} ${fn}`, { module: file, fn, drizzle: first === 'db' });
    }
  }
  return found;
}

/**
 * Runs every sample on `handle`, each in a transaction rolled back afterwards (so each sees the
 * seeded database as it is), every statement in a savepoint of its own: a broken one is recorded
 * and answers no rows, and the function goes on to its next statement where it can.
 */
export async function checkStatements<Seed>(
  handle: DatabaseHandle,
  samples: Samples<Seed>,
  seed: Seed,
): Promise<NetReport> {
  const report: NetReport = { broken: [], uncovered: [], silent: [], statements: 0 };
  const functions = await queryFunctions();
  for (const [key, { module, fn, drizzle }] of functions) {
    const calls = samples[module]?.[fn] ?? [];
    if (calls.length === 0) report.uncovered.push(`db/queries/${key}`);
    for (const [i, call] of calls.entries()) {
      const name = `db/queries/${key}${calls.length > 1 ? ` (sample ${i + 1})` : ''}`;
      if (drizzle) {
        await runDrizzleSample(handle, name, report, (db) => call({ db, runner: handle.sql, seed }));
        continue;
      }
      const sent = { n: 0 };
      try {
        await handle.sql.transaction(async (tx) => {
          await call({ runner: recordingRunner(tx, name, report, sent), db: handle.db, seed }).catch(
            () => {},
          );
          throw new Rollback();
        });
      } catch (error) {
        if (!(error instanceof Rollback)) throw error;
      }
      if (sent.n === 0) report.silent.push(name);
    }
  }
  return report;
}

/** A function of the tools' modules (Drizzle): its first schema error, by the function's name. */
async function runDrizzleSample(
  handle: DatabaseHandle,
  name: string,
  report: NetReport,
  call: (db: Database) => Promise<unknown>,
) {
  try {
    await handle.db.transaction(async (tx) => {
      try {
        await call(tx as unknown as Database);
      } catch (error) {
        const state = sqlState(error);
        if (isSchemaError(state)) report.broken.push({ name, sqlState: state, message: messageOf(error) });
      }
      throw new Rollback();
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
  }
}

const messageOf = (error: unknown) => {
  const cause = (error as { cause?: { message?: string } }).cause;
  return cause?.message ?? (error as Error).message;
};

/**
 * Calls every function of the public schema with typed nulls (a PL/pgSQL body is planned only when
 * it runs), and fires every statement-level trigger with a statement that touches no row, so its
 * function's body runs too. Each in a savepoint of a transaction rolled back afterwards.
 */
export async function checkFunctions(
  handle: DatabaseHandle,
): Promise<{ broken: Broken[]; checked: string[] }> {
  const broken: Broken[] = [];
  const checked: string[] = [];
  const run = async (name: string, text: string) => {
    checked.push(name);
    try {
      await handle.sql.transaction(async (tx) => {
        try {
          await tx.transaction((sp) => sp.rows(raw(text)));
        } catch (error) {
          const state = sqlState(error);
          if (isSchemaError(state)) broken.push({ name, sqlState: state, message: (error as Error).message });
        }
        throw new Rollback();
      });
    } catch (error) {
      if (!(error instanceof Rollback)) throw error;
    }
  };
  const functions = rowsOf<{ name: string; types: string[] | string }>(
    await handle.db.execute(
      sql.raw(`
      select p.proname as name,
        array(select format_type(t, null) from unnest(p.proargtypes::oid[]) with ordinality a(t, i) order by i) as types
      from pg_proc p
      where p.pronamespace = 'public'::regnamespace and p.prokind = 'f'
        and p.prorettype <> 'trigger'::regtype
      order by 1`),
    ),
  );
  for (const { name, types } of functions) {
    const list = typeof types === 'string' ? parseArray(types) : types;
    const args = list.map((t) => `null::${t}`).join(', ');
    await run(`function ${name}(${list.join(', ')})`, `select "${name}"(${args})`);
  }
  const triggers = rowsOf<{ trigger: string; fn: string; tbl: string; type: number; col: string }>(
    await handle.db.execute(
      sql.raw(`
      select t.tgname as trigger, p.proname as fn, c.relname as tbl, t.tgtype::int as type,
        (select attname from pg_attribute where attrelid = c.oid and attnum > 0 and not attisdropped
          order by attnum limit 1) as col
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
      where not t.tgisinternal and c.relnamespace = 'public'::regnamespace
      order by 1`),
    ),
  );
  for (const { trigger, fn, tbl, type, col } of triggers) {
    const name = `trigger ${trigger} on ${tbl} (function ${fn})`;
    // A row-level trigger fires for rows only; none here fires it.
    if (type & 1) {
      broken.push({ name, sqlState: '-', message: 'row-level trigger: not fired by the net (add a way)' });
      continue;
    }
    if (type & 4) await run(`${name} insert`, `insert into "${tbl}" select * from "${tbl}" where false`);
    if (type & 16) await run(`${name} update`, `update "${tbl}" set "${col}" = "${col}" where false`);
    if (type & 8) await run(`${name} delete`, `delete from "${tbl}" where false`);
  }
  return { broken, checked };
}

/** Postgres's text form of a text array (`{"character varying",bigint}`), as PGlite may return it. */
function parseArray(text: string): string[] {
  const inner = text.slice(1, -1);
  if (inner === '') return [];
  return [...inner.matchAll(/"((?:[^"\\]|\\.)*)"|([^,]+)/g)].map((m) => m[1] ?? m[2] ?? '');
}
