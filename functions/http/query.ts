import type * as v from 'valibot';
import type { QueryParam } from '#contract/schemas/query.ts';
import { validationFailed } from './problem.ts';
import type { ApiEvent } from './types.ts';
import { invalidBecause, parseOrProblem } from './validation.ts';

/**
 * Reads the raw query string, not `queryStringParameters`: API Gateway joins repeated parameters
 * with commas there, which would hide `?limit=1&limit=2`. A repeatable parameter's values are
 * joined with commas (so repeating and comma-separating mean the same); any other repeated → 400.
 */
export function parseQuery<S extends v.GenericSchema>(
  schema: S,
  params: Record<string, QueryParam>,
  event: Pick<ApiEvent, 'rawQueryString'>,
): v.InferOutput<S> {
  const values = new Map<string, string>();
  const repeated = new Set<string>();
  for (const [name, value] of new URLSearchParams(event.rawQueryString ?? '')) {
    if (name === '') {
      throw validationFailed('A query parameter has no name.', [
        { path: '(unnamed)', message: 'a query parameter needs a name before its "="' },
      ]);
    }
    const earlier = values.get(name);
    if (earlier === undefined) values.set(name, value);
    else if (Object.hasOwn(params, name) && params[name]?.repeatable) values.set(name, `${earlier},${value}`);
    else repeated.add(name);
  }
  // Postgres cannot hold U+0000 in text: refused here, by name, before any statement sees it.
  const withNul = [...values].filter(([, value]) => value.includes('\u0000')).map(([name]) => name);
  if (withNul.length > 0) {
    const errors = withNul.map((path) => ({ path, message: 'must not contain the NUL character (U+0000)' }));
    throw validationFailed(invalidBecause('query string', errors), errors);
  }
  if (repeated.size > 0) {
    const errors = [...repeated].map((path) => ({ path, message: 'must be given at most once' }));
    throw validationFailed(`Query parameters given more than once: ${[...repeated].join(', ')}.`, errors);
  }
  // fromEntries defines own properties, so even `__proto__` is a key the schema sees (and refuses).
  return parseOrProblem(schema, Object.fromEntries(values), 'query string');
}
