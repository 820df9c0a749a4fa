import fc from 'fast-check';
import sql, { raw } from 'sql-template-tag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#db/client.ts';
import { inlineValues, stringLiteral } from '#db/inline-values.ts';
import { freshDatabase } from '#test/helpers/database.ts';

// The Postgres runner writes a statement's values into its text (db/inline-values.ts): here the
// literals are held to what the database reads back, whatever a client sends.

/** Text a hostile client could send, rich in what ends or escapes a literal. */
const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom(
      "'",
      "''",
      '\\',
      "\\'",
      'E',
      "E'",
      '$$',
      ';',
      '--',
      '/*',
      '\n',
      '"',
      'é',
      '😀',
      '\uD800',
      ' ',
    ),
    maxLength: 30,
  }),
);
/** What Postgres stores for a JS string: its UTF-8 (a lone surrogate becomes U+FFFD), without NUL. */
const stored = (value: string) => Buffer.from(value, 'utf8').toString('utf8');

describe('values written into statements as literals', () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await freshDatabase();
  });
  afterAll(() => handle.close());

  const readBack = async (literal: string, conforming: 'on' | 'off') =>
    handle.sql.transaction(async (tx) => {
      await tx.rows(raw(`set local standard_conforming_strings = ${conforming}`));
      const [row] = await tx.rows<{ value: string; tail: string }>(
        raw(`select ${literal}::text as value, 'tail' as tail`),
      );
      return row;
    });

  for (const conforming of ['on', 'off'] as const) {
    it(`reads back every string exactly, and nothing after it, with standard_conforming_strings ${conforming}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          hostile.filter((s) => !s.includes('\0')),
          async (value) => {
            expect(await readBack(stringLiteral(value), conforming)).toEqual({
              value: stored(value),
              tail: 'tail',
            });
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('writes each kind of value the queries pass, and the statement answers as with parameters', async () => {
    const statement = sql`select ${"O'Brien \\ 1"}::text as s, ${25}::int as n, ${-1.5}::numeric as d,
      ${null}::text as z, ${true} as b, ${10n}::bigint::text as big`;
    const text = inlineValues(statement);
    expect(text).toContain(`E'O''Brien \\\\ 1'`);
    const [inlined] = await handle.sql.rows(raw(text ?? ''));
    expect(inlined).toEqual({ s: "O'Brien \\ 1", n: 25, d: '-1.5', z: null, b: true, big: '10' });
  });

  it('has no literal for NUL, a non-finite number or an object: those statements keep their parameters', () => {
    for (const value of [
      'a\0b',
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new Date(0),
      { a: 1 },
      [1],
      undefined,
    ]) {
      expect(inlineValues(sql`select ${value}`)).toBeUndefined();
    }
    expect(inlineValues(sql`select 1`)).toBe('select 1');
  });

  it('answers a value with NUL as before: the database refuses it (22021)', async () => {
    await expect(handle.sql.rows(sql`select ${'a\0b'}::text as v`)).rejects.toMatchObject({ code: '22021' });
  });

  it('never runs a second statement from one text, should a literal ever end early', async () => {
    await expect(handle.sql.rows(raw(`select 1 as one; select 2 as two`))).rejects.toMatchObject({
      code: '42601',
    });
  });
});
