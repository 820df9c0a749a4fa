import * as v from 'valibot';
import { type FieldError, validationFailed } from './problem.ts';

/** A Valibot issue in words a client can act on, at the dot path of the offending field. */
export function describeIssue(issue: v.BaseIssue<unknown>, root = ''): FieldError {
  const path = [root, v.getDotPath(issue)].filter(Boolean).join('.') || '(root)';
  if (issue.kind === 'schema' && issue.type === 'strict_object' && issue.expected === 'never') {
    return { path, message: 'is not a known field' };
  }
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
  const result = v.safeParse(schema, input, { abortPipeEarly: true });
  if (result.success) return result.output;
  const errors = result.issues.map((issue) => describeIssue(issue, root));
  throw validationFailed(
    `The ${what} is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
    errors,
  );
}
