import * as v from 'valibot';
import type { QueryParam } from '#contract/schemas/query.ts';
import { ownRecord } from './own-record.ts';
import { type FieldError, validationFailed } from './problem.ts';
import { type ApiEvent, queryPairs } from './types.ts';
import { describeIssue, invalidBecause, unique } from './validation.ts';

/**
 * What API Gateway's decoding makes of bytes that are not UTF-8: U+FFFD. A payload-1.0 event holds
 * decoded values only, so a value holding it is refused rather than taken as changed.
 */
const REPLACEMENT = '\uFFFD';

/**
 * A parameter's name as an error's path: as it is, unless it holds U+FFFD (its bytes are lost, so
 * it is shown percent-encoded, as a client could send it again).
 */
const nameAsPath = (name: string) => (name.includes(REPLACEMENT) ? encodeURIComponent(name) : name);

/**
 * Reads every value of the query string (`queryPairs`), not `queryStringParameters`: API Gateway
 * keeps only the last of a repeated parameter there, which would hide `?limit=1&limit=2`. A repeatable parameter's values are
 * joined with commas (so repeating and comma-separating mean the same); any other repeated → 400.
 */
export function parseQuery<S extends v.GenericSchema>(
  schema: S,
  params: Record<string, QueryParam>,
  event: Pick<ApiEvent, 'multiValueQueryStringParameters'>,
): v.InferOutput<S> {
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  const notUtf8: string[] = [];
  for (const [name, value] of queryPairs(event)) {
    if (name === '') {
      throw validationFailed('A query parameter has no name.', [
        { path: '(unnamed)', message: 'a query parameter needs a name before its "="' },
      ]);
    }
    if (name.includes(REPLACEMENT) || value.includes(REPLACEMENT)) {
      notUtf8.push(nameAsPath(name));
      continue;
    }
    const earlier = values.get(name);
    if (earlier === undefined) values.set(name, value);
    else if (Object.hasOwn(params, name) && params[name]?.repeatable) values.set(name, `${earlier},${value}`);
    else repeated.add(name);
  }
  // Postgres cannot hold U+0000 in text: such a value is refused by name, before any statement
  // sees it, alongside whatever else is wrong with the query string.
  const errors: FieldError[] = [
    ...notUtf8.map((path) => ({ path, message: 'must be UTF-8 text once percent-decoded' })),
    ...[...repeated].map((path) => ({ path, message: 'must be given at most once' })),
  ];
  for (const [name, value] of values) {
    if (!value.includes('\u0000')) continue;
    errors.push({ path: name, message: 'must not contain the NUL character (U+0000)' });
    values.delete(name);
  }
  // Own properties, so even `__proto__` is a key the schema sees (and refuses).
  const parsed = v.safeParse(schema, ownRecord(values));
  if (!parsed.success) errors.push(...parsed.issues.map((issue) => describeIssue(issue)));
  if (errors.length > 0)
    throw validationFailed(invalidBecause('query string', unique(errors)), unique(errors));
  return parsed.output;
}
