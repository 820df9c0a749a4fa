import type * as v from 'valibot';
import { validationFailed } from './problem.ts';
import type { ApiEvent } from './types.ts';
import { parseOrProblem } from './validation.ts';

/**
 * Reads the raw query string, not `queryStringParameters`: API Gateway joins repeated parameters
 * with commas there, which would hide `?limit=1&limit=2`. A repeated parameter is refused.
 */
export function parseQuery<S extends v.GenericSchema>(schema: S, event: Pick<ApiEvent, 'rawQueryString'>) {
  const params = new URLSearchParams(event.rawQueryString ?? '');
  const values: Record<string, string> = {};
  const repeated = new Set<string>();
  for (const [name, value] of params) {
    if (Object.hasOwn(values, name)) repeated.add(name);
    values[name] = value;
  }
  if (repeated.size > 0) {
    const errors = [...repeated].map((path) => ({ path, message: 'must be given at most once' }));
    throw validationFailed(`Query parameters given more than once: ${[...repeated].join(', ')}.`, errors);
  }
  return parseOrProblem(schema, values, 'query string') as v.InferOutput<S>;
}
