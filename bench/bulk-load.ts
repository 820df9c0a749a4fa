import { sql } from 'drizzle-orm';
import type { Database } from '#db/client.ts';
import { rowsOf } from '#db/queries/rows.ts';

/** A constraint or index of a loaded table, and the statement that puts it back. */
export interface Structure {
  table: string;
  name: string;
  kind: 'f' | 'p' | 'u' | 'i';
  definition: string;
}

export type Kind = Structure['kind'];
export const ALL_KINDS: readonly Kind[] = ['f', 'p', 'u', 'i'];

/**
 * Foreign keys, primary keys, unique constraints and plain indexes of `tables` (those of `kinds`),
 * foreign keys first: the order they can be dropped in (a foreign key needs its target's index).
 */
export async function listStructures(db: Database, tables: readonly string[], kinds = ALL_KINDS) {
  const list = (values: readonly string[]) =>
    sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    );
  return rowsOf<Structure>(
    await db.execute(sql`
      select * from (
        select conrelid::regclass::text as "table", conname::text as name, contype::text as kind,
          pg_get_constraintdef(oid) as definition
        from pg_constraint where contype in ('f', 'p', 'u') and conrelid::regclass::text in (${list(tables)})
        union all
        select i.indrelid::regclass::text, c.relname::text, 'i', pg_get_indexdef(i.indexrelid)
        from pg_index i join pg_class c on c.oid = i.indexrelid
        where i.indrelid::regclass::text in (${list(tables)})
          and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
      ) s
      where kind in (${list(kinds)})
      order by kind, "table", name`),
  );
}

/**
 * Runs `load` in one transaction with the keys, constraints and indexes of `tables` dropped, then
 * puts them back exactly as they were (definitions read from the catalog, so a schema change needs
 * no edit here): what pg_restore does. Building an index by one sort and checking a foreign key by
 * one join costs seconds where per-row index inserts and trigger checks cost tens of seconds.
 * Nothing is committed unless every constraint holds again.
 */
export async function withConstraintsRebuilt<T>(
  db: Database,
  tables: readonly string[],
  load: (tx: Database) => Promise<T>,
  kinds = ALL_KINDS,
): Promise<T> {
  return db.transaction(async (tx) => {
    // A bulk load outlasts the API's per-statement timeout; only this transaction is exempt.
    await tx.execute(sql`set local statement_timeout = 0`);
    await tx.execute(sql`set local maintenance_work_mem = '256MB'`);
    const structures = await listStructures(tx, tables, kinds);
    for (const s of structures) {
      await tx.execute(
        s.kind === 'i'
          ? sql`drop index ${sql.identifier(s.name)}`
          : sql`alter table ${sql.identifier(s.table)} drop constraint ${sql.identifier(s.name)}`,
      );
    }
    const result = await load(tx);
    for (const s of [...structures].reverse()) {
      await tx.execute(
        s.kind === 'i'
          ? sql.raw(s.definition)
          : sql`alter table ${sql.identifier(s.table)} add constraint ${sql.identifier(s.name)} ${sql.raw(s.definition)}`,
      );
    }
    return result;
  });
}
