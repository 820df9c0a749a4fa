import * as v from 'valibot';
import { type FieldError, validationFailed } from './problem.ts';

/** A Valibot issue in words a client can act on, at the dot path of the offending field. */
export function describeIssue(issue: v.BaseIssue<unknown>, root = ''): FieldError {
  // Keys as given, an empty one shown as "" (getDotPath would make it vanish into its parent).
  const keys = (issue.path ?? []).map((item) => (item.key === '' ? '""' : String(item.key)));
  const path = [root, ...keys].filter(Boolean).join('.') || '(root)';
  if (issue.kind === 'schema' && issue.received === 'undefined') {
    return { path, message: 'is required' };
  }
  if (issue.message.startsWith('Invalid type: ')) {
    return { path, message: `must be ${issue.expected}, not ${issue.received}` };
  }
  return { path, message: issue.message };
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
  const described = result.issues.map((issue) => describeIssue(issue, root));
  // Two checks may say the same thing about one field: say it once.
  const errors = described.filter(
    (e, i) => described.findIndex((f) => f.path === e.path && f.message === e.message) === i,
  );
  throw validationFailed(
    `The ${what} is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
    errors,
  );
}
