import type * as v from 'valibot';
import type { QueryParam } from '../schemas/query.ts';
import { validationFailed } from './problem.ts';
import type { ApiEvent } from './types.ts';
import { parseOrProblem } from './validation.ts';

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
  const values: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [name, value] of new URLSearchParams(event.rawQueryString ?? '')) {
    if (!Object.hasOwn(values, name)) values[name] = value;
    else if (Object.hasOwn(params, name) && params[name]?.repeatable) values[name] += `,${value}`;
    else repeated.add(name);
  }
  if (repeated.size > 0) {
    const errors = [...repeated].map((path) => ({ path, message: 'must be given at most once' }));
    throw validationFailed(`Query parameters given more than once: ${[...repeated].join(', ')}.`, errors);
  }
  return parseOrProblem(schema, values, 'query string');
}
