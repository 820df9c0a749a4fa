import * as v from 'valibot';
import { Problem } from '#contract/schemas/problem.ts';

// What `npm run smoke`'s checks are, and what they hold an answer to: its status, media type and the
// contract's shape.

/** A check that does not apply here: reported with its reason, counted neither way. */
export class Skip extends Error {}

export interface Check {
  name: string;
  /** Resolves to a short detail; throws to fail, throws Skip to skip. */
  run: () => Promise<string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export function fail(message: string): never {
  throw new Error(message);
}

/** The body against its schema: the first few issues, with their paths, when it does not match. */
export function shaped<S extends v.GenericSchema>(schema: S, answer: Answer, what: string): v.InferOutput<S> {
  const parsed = v.safeParse(schema, answer.body);
  if (parsed.success) return parsed.output;
  const issues = parsed.issues
    .slice(0, 3)
    .map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`)
    .join('; ');
  return fail(`${what} does not match the contract: ${issues}`);
}

export function expectStatus(answer: Answer, status: number, contentType = 'application/json') {
  if (answer.status !== status) {
    fail(`expected ${status}, got ${answer.status}${answer.text ? `: ${answer.text.slice(0, 160)}` : ''}`);
  }
  const type = answer.headers.get('content-type') ?? '';
  if (!type.startsWith(contentType)) fail(`expected ${contentType}, got content-type "${type}"`);
}

export const problemOf = (answer: Answer, status: number) => {
  expectStatus(answer, status, 'application/problem+json');
  return shaped(Problem, answer, 'the problem');
};
