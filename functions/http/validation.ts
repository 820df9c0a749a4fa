import * as v from 'valibot';
import { type FieldError, validationFailed } from './problem.ts';

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  Array: 'an array',
  Object: 'an object',
  null: 'null',
};

/** What JSON type a value is, in words (never the value itself). */
function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return TYPE_WORDS[typeof value === 'object' ? 'Object' : typeof value] ?? typeof value;
}

/**
 * A Valibot issue in words a client can act on, at the dot path of the offending field. Our
 * schemas word their own messages; Valibot's defaults (`Invalid type: Expected …`, `Invalid key:
 * Expected never…`) are put in the API's words here, so none reaches a client.
 */
export function describeIssue(issue: v.BaseIssue<unknown>, root = ''): FieldError {
  // Keys as given, an empty one shown as "" (getDotPath would make it vanish into its parent).
  const keys = (issue.path ?? []).map((item) => (item.key === '' ? '""' : String(item.key)));
  const path = [root, ...keys].filter(Boolean).join('.') || '(root)';
  if (issue.kind === 'schema' && issue.received === 'undefined') {
    return { path, message: 'is required' };
  }
  if (!issue.message.startsWith('Invalid ')) return { path, message: issue.message };
  // A strict object's unknown key: Valibot expects "never" there.
  if (issue.expected === 'never') return { path, message: 'is not a known field' };
  if (issue.kind === 'schema') {
    const expected = TYPE_WORDS[issue.expected ?? ''] ?? issue.expected ?? 'another type';
    return { path, message: `must be ${expected}, not ${typeOf(issue.input)}` };
  }
  return { path, message: issue.expected ? `must be ${issue.expected}` : 'is not valid' };
}

/** Parses or throws a 400 problem listing every offending field. */
export function parseOrProblem<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  what: string,
  root = '',
): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const errors = unique(result.issues.map((issue) => describeIssue(issue, root)));
  throw validationFailed(invalidBecause(what, errors), errors);
}

/** Two checks may say the same thing about one field: said once. */
export const unique = (errors: FieldError[]) =>
  errors.filter((e, i) => errors.findIndex((f) => f.path === e.path && f.message === e.message) === i);

/** The `detail` of a validation problem: what was invalid, in the words of its `errors`. */
export const invalidBecause = (what: string, errors: FieldError[]) =>
  `The ${what} is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`;
