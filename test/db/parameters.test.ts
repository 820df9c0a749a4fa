import fc from 'fast-check';
import sql, { raw } from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { freshDatabase } from '#test/helpers/database.ts';

// The runner sends a statement's values as parameters, never written into its text: whatever a
// client sends is read back exactly and cannot change the statement.

/** Text a hostile client could send, rich in what would end or escape a literal. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom(
      "'",
      "''",
      '\\',
      "\\'",
      "E'",
      '$$',
      '$1',
      ';',
      '--',
      '/*',
      '\n',
      '"',
      'é',
      '😀',
      '\uD800',
    ),
    maxLength: 30,
  }),
);
/** What Postgres stores for a JS string: its UTF-8 (a lone surrogate becomes U+FFFD). */
const stored = (value: string) => Buffer.from(value, 'utf8').toString('utf8');

describe('values sent as parameters', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await freshDatabase();
  });
  afterAll(() => handle.close());

  it('reads back every string exactly, and the statement around it unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostile.filter((s) => !s.includes('\0')),
        async (value) => {
          const rows = await handle.sql.rows(sql`select ${value}::text as value, 'tail' as tail`);
          expect(rows).toEqual([{ value: stored(value), tail: 'tail' }]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('sends each kind of value the queries pass', async () => {
    const [row] = await handle.sql.rows(sql`select ${"O'Brien \\ 1"}::text as s, ${25}::int as n,
      ${-1.5}::numeric::text as d, ${null}::text as z, ${true}::boolean as b, ${'10'}::bigint::text as big`);
    expect(row).toEqual({ s: "O'Brien \\ 1", n: 25, d: '-1.5', z: null, b: true, big: '10' });
  });

  it('leaves a value with NUL to the database, which refuses it (22021)', async () => {
    await expect(handle.sql.rows(sql`select ${'a\0b'}::text as v`)).rejects.toMatchObject({ code: '22021' });
  });

  it('never runs a second statement from one text', async () => {
    await expect(handle.sql.rows(raw('select 1 as one; select 2 as two'))).rejects.toMatchObject({
      code: '42601',
    });
    await expect(handle.sql.rows(sql`select ${1}::int as one; select 2 as two`)).rejects.toMatchObject({
      code: '42601',
    });
  });
});
