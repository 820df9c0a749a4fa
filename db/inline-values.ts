// A statement's values written into its text as Postgres literals, so postgres.js can send it in
// one round trip. With parameters and no server-side prepared statements (RDS Proxy would pin the
// connection), postgres.js first sends Parse/Describe to learn the parameters' types and waits for
// the answer before Bind/Execute: two round trips per statement, and two wake-ups of the backend
// (docs/performance.md, "One round trip per statement"). Hand-written because it is ten lines and
// no well-kept package offers it without a whole driver (this is node-postgres's `escapeLiteral`).
import type { Statement } from './database.ts';

/**
 * A string as a Postgres literal: quotes doubled; if it holds a backslash, backslashes doubled too
 * and the literal written as an escape string (` E'…'`), which reads the same whatever
 * `standard_conforming_strings` says. The connection's encoding is UTF-8 (postgres.js sets it),
 * where no multi-byte character contains a quote's or a backslash's byte.
 */
export function stringLiteral(value: string): string {
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return value.includes('\\') ? ` E${quoted.replaceAll('\\', '\\\\')}` : quoted;
}

/**
 * One value as a literal, or undefined when it has none here. Numbers are written as untyped
 * literals (`'25'`), as postgres.js sends them untyped, so Postgres infers the same types.
 * A string with NUL has no literal: the statement's text would end at it. Such a statement goes
 * with parameters, and Postgres answers it exactly as before (22021).
 */
function literal(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return value.includes('\0') ? undefined : stringLiteral(value);
    case 'number':
      return Number.isFinite(value) ? `'${value}'` : undefined;
    case 'bigint':
      return `'${value}'`;
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return undefined;
  }
}

/**
 * The statement's text with every value written in as a literal, or undefined if one value has
 * no literal (the caller then sends the parameters). Sent without parameters over the extended
 * protocol, the text is one statement only: Postgres refuses a second one in a Parse message.
 */
export function inlineValues({ strings, values }: Statement): string | undefined {
  let text = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    const written = literal(values[i]);
    if (written === undefined) return undefined;
    text += written + strings[i + 1];
  }
  return text;
}
